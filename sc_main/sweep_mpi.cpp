// The MPI half of `famsim sweep` (Open MPI): collecting every rank's results at rank 0. Built into
// the famsim executable only, so the library and the tests do not depend on MPI.
#include "sc_main/report.h"
#include "sc_main/sweep.h"

#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace famsim {

namespace fs = std::filesystem;

std::vector<nlohmann::json> gather_results(std::vector<nlohmann::json> results, unsigned rank,
                                           unsigned ranks, const std::string& out_dir) {
  constexpr int kTag = 7;
  if (rank != 0) {
    nlohmann::json mine = nlohmann::json::array();
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i].is_null()) mine.push_back({{"index", i}, {"result", results[i]}});
    }
    const std::string text = mine.dump();
    const std::uint64_t size = text.size();
    MPI_Send(&size, 1, MPI_UINT64_T, 0, kTag, MPI_COMM_WORLD);
    MPI_Send(text.data(), static_cast<int>(size), MPI_CHAR, 0, kTag, MPI_COMM_WORLD);
    return results;
  }
  for (unsigned r = 1; r < ranks; ++r) {
    std::uint64_t size = 0;
    MPI_Recv(&size, 1, MPI_UINT64_T, static_cast<int>(r), kTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    std::string text(size, '\0');
    MPI_Recv(text.data(), static_cast<int>(size), MPI_CHAR, static_cast<int>(r), kTag,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (auto& e : nlohmann::json::parse(text)) {
      const std::size_t i = e["index"].get<std::size_t>();
      nlohmann::json res = std::move(e["result"]);
      // A rank on another machine wrote its point directory there: keep a copy here.
      const fs::path dir = point_dir(out_dir, i);
      if (res.contains("stats") && !fs::exists(dir / "stats.json")) {
        fs::create_directories(dir);
        write_file_atomically((dir / "stats.json").string(), res["stats"].get<std::string>());
        const nlohmann::json record = {{"index", i},
                                       {"overrides", res["overrides"]},
                                       {"status", res["status"]},
                                       {"error", res["error"]}};
        write_file_atomically((dir / "point.json").string(), record.dump(2) + "\n");
      }
      res.erase("stats");
      results[i] = std::move(res);
    }
  }
  return results;
}

}  // namespace famsim
