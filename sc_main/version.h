// Which famsim made a result: the project version and the git commit it was built from
// (cmake/version.cmake writes the definition at build time), e.g. "0.1.0 (1183d3c0a1b2)", with
// "-dirty" when the tree had uncommitted changes. stats.json (sim.famsim_version), sweep.json and
// `famsim --version` give it, so that a result can be traced to the code that made it.
#pragma once

namespace famsim {

extern const char* const kVersion;

}  // namespace famsim
