// Strict configuration reading: getters and their errors, unknown keys, byte counts, --set
// overrides, merging, source lookup and YAML -> JSON typing.
#include "models/core/config.h"
#include "tests/support/test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace famsim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kFile = "my-config.yaml";

// Line numbers below are 1-based lines of this text.
constexpr const char* kText =
    "gpus:\n"                // 1
    "  count: 8\n"           // 2
    "  name: eight\n"        // 3
    "  clock_mhz: 1500.5\n"  // 4
    "  fast: true\n"         // 5
    "  size: 64KiB\n"        // 6
    "  ids: [1, 2, 3]\n"     // 7
    "  tags: solo\n"         // 8
    "  mode: xor\n"          // 9
    "  nested: {a: 1}\n"     // 10
    "  zero: 0\n"            // 11
    "streams:\n"             // 12
    "  - {bytes: 1}\n"       // 13
    "  - 5\n";               // 14

struct Fixture {
  std::shared_ptr<ConfigSources> sources = std::make_shared<ConfigSources>(kFile);
  YAML::Node root = load_yaml_text(kText, kFile);
  ConfigNode node{root, "", sources};
  ConfigNode gpus = node.child("gpus");
};

TEST(ConfigNode, GettersReadTypedValues) {
  Fixture fx;
  EXPECT_EQ(fx.gpus.path(), "gpus");
  EXPECT_EQ(fx.gpus.get_uint("count", std::nullopt, 1, 64), 8u);
  EXPECT_EQ(fx.gpus.get_string("name", std::nullopt), "eight");
  EXPECT_DOUBLE_EQ(fx.gpus.get_double("clock_mhz", std::nullopt, 0.0, 1e5, true), 1500.5);
  EXPECT_TRUE(fx.gpus.get_bool("fast", std::nullopt));
  EXPECT_EQ(fx.gpus.get_bytes("size", std::nullopt), 65536u);
  EXPECT_EQ(fx.gpus.get_uint_list("ids", 0, 10), (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(fx.gpus.get_string_list("tags"), (std::vector<std::string>{"solo"}));
  EXPECT_EQ(fx.gpus.get_choice("mode", std::nullopt, {"modulo", "xor"}), "xor");
  EXPECT_EQ(fx.gpus.get_uint("zero", std::nullopt), 0u);
  // Defaults for absent keys.
  EXPECT_EQ(fx.gpus.get_uint("absent", 42), 42u);
  EXPECT_EQ(fx.gpus.get_string("absent_s", std::string("d")), "d");
  EXPECT_FALSE(fx.gpus.get_bool("absent_b", false));
  EXPECT_EQ(fx.gpus.get_bytes("absent_bytes", 7), 7u);
  EXPECT_TRUE(fx.gpus.get_uint_list("absent_list", 0, 1).empty());
  EXPECT_TRUE(fx.gpus.has("count"));
  EXPECT_FALSE(fx.gpus.has("absent"));
  ConfigNode nested = fx.gpus.child("nested");
  EXPECT_EQ(nested.path(), "gpus.nested");
  EXPECT_EQ(nested.get_uint("a", std::nullopt), 1u);
  // An absent child is an empty map.
  ConfigNode none = fx.gpus.child("none");
  EXPECT_FALSE(none.has("x"));
  EXPECT_NO_THROW(none.finish());
}

TEST(ConfigNode, DefaultsTakenAreRecordedByKeyPathAndGivenValuesAreNot) {
  Fixture fx;
  fx.gpus.get_uint("count", 3);    // given: 8, no default taken
  fx.gpus.get_uint("absent", 42);  // taken
  fx.gpus.get_double("absent_d", 1.5, 0, 10);
  fx.gpus.get_choice("absent_c", std::string("xor"), {"modulo", "xor"});
  fx.gpus.child("nested").get_bool("absent_b", true);
  fx.node.child("sim").get_bytes("absent_bytes", 4096);
  // A key with no default: found when given, nothing when absent, never recorded.
  EXPECT_EQ(fx.gpus.find_uint("count", 1, 64), std::optional<std::uint64_t>(8));
  EXPECT_FALSE(fx.gpus.find_uint("absent_f", 0, 10).has_value());
  EXPECT_FALSE(fx.gpus.find_double("absent_fd", 0, 10).has_value());
  const auto& d = fx.sources->defaults();
  EXPECT_EQ(d.size(), 5u);
  EXPECT_FALSE(d.count("gpus.count"));
  EXPECT_EQ(d.at("gpus.absent"), 42);
  EXPECT_EQ(d.at("gpus.absent_d"), 1.5);
  EXPECT_EQ(d.at("gpus.absent_c"), "xor");
  EXPECT_EQ(d.at("gpus.nested.absent_b"), true);
  EXPECT_EQ(d.at("sim.absent_bytes"), 4096);
}

TEST(ConfigNode, ErrorsNameFileLineAndFullKeyPath) {
  Fixture fx;
  // Wrong type: `name: eight` read as an integer (line 3).
  std::string m = test::config_error_of([&] { fx.gpus.get_uint("name", std::nullopt); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:3"));
  EXPECT_THAT(m, HasSubstr("gpus.name"));
  EXPECT_THAT(m, HasSubstr("'eight'"));
  // Out of range (line 2).
  m = test::config_error_of([&] { fx.gpus.get_uint("count", std::nullopt, 1, 4); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:2"));
  EXPECT_THAT(m, HasSubstr("gpus.count"));
  EXPECT_THAT(m, HasSubstr("[1, 4]"));
  // Missing required key.
  m = test::config_error_of([&] { fx.gpus.get_uint("missing_key", std::nullopt); });
  EXPECT_THAT(m, HasSubstr(kFile));
  EXPECT_THAT(m, HasSubstr("gpus.missing_key"));
  EXPECT_THAT(m, HasSubstr("missing"));
  // Exclusive minimum.
  m = test::config_error_of([&] { fx.gpus.get_double("zero", std::nullopt, 0.0, 1.0, true); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:11"));
  EXPECT_THAT(m, HasSubstr("gpus.zero"));
  // Not a number.
  m = test::config_error_of([&] { fx.gpus.get_double("name", std::nullopt, 0.0, 1.0); });
  EXPECT_THAT(m, HasSubstr("gpus.name"));
  // Not a boolean.
  m = test::config_error_of([&] { fx.gpus.get_bool("name", std::nullopt); });
  EXPECT_THAT(m, HasSubstr("gpus.name"));
  EXPECT_THAT(m, HasSubstr("true or false"));
  // Not an allowed choice.
  m = test::config_error_of([&] { fx.gpus.get_choice("name", std::nullopt, {"modulo", "xor"}); });
  EXPECT_THAT(m, HasSubstr("gpus.name"));
  EXPECT_THAT(m, HasSubstr("modulo | xor"));
  // Malformed byte count.
  m = test::config_error_of([&] { fx.gpus.get_bytes("name", std::nullopt); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:3"));
  EXPECT_THAT(m, HasSubstr("gpus.name"));
  // A list entry out of range.
  m = test::config_error_of([&] { fx.gpus.get_uint_list("ids", 0, 2); });
  EXPECT_THAT(m, HasSubstr("gpus.ids"));
  // A map where a single value is expected.
  m = test::config_error_of([&] { fx.gpus.get_uint("nested", std::nullopt); });
  EXPECT_THAT(m, HasSubstr("gpus.nested"));
  EXPECT_THAT(m, HasSubstr("a map"));
  // A value where a map is expected.
  m = test::config_error_of([&] { fx.gpus.child("count"); });
  EXPECT_THAT(m, HasSubstr("gpus.count"));
  // A required child that is absent.
  m = test::config_error_of([&] { fx.gpus.child("absent_child", true); });
  EXPECT_THAT(m, HasSubstr("gpus.absent_child"));
  // A list element that is not a map (line 14) names its index.
  m = test::config_error_of([&] { fx.node.list("streams"); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:14"));
  EXPECT_THAT(m, HasSubstr("streams.1"));
}

TEST(ConfigNode, ListElementsHaveIndexedPaths) {
  auto sources = std::make_shared<ConfigSources>(kFile);
  ConfigNode root(load_yaml_text("s:\n  - {a: 1}\n  - {a: x}\n", kFile), "", sources);
  auto items = root.list("s", true);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].path(), "s.0");
  EXPECT_EQ(items[1].path(), "s.1");
  EXPECT_EQ(items[0].get_uint("a", std::nullopt), 1u);
  const std::string m = test::config_error_of([&] { items[1].get_uint("a", std::nullopt); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:3"));
  EXPECT_THAT(m, HasSubstr("s.1.a"));
}

TEST(ConfigNode, FinishReportsUnreadKeys) {
  auto sources = std::make_shared<ConfigSources>(kFile);
  ConfigNode root(load_yaml_text("a: {x: 1, typo: 2}\nb: 3\n", kFile), "", sources);
  ConfigNode a = root.child("a");
  a.get_uint("x", std::nullopt);
  std::string m = test::config_error_of([&] { a.finish(); });
  EXPECT_THAT(m, HasSubstr(kFile));
  EXPECT_THAT(m, HasSubstr("a.typo"));
  EXPECT_THAT(m, HasSubstr("unknown key"));
  // Top level: `b` never read.
  m = test::config_error_of([&] { root.finish(); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:2"));
  EXPECT_THAT(m, HasSubstr("'b'"));
  // Once read (or ignored), no error.
  root.ignore("b");
  EXPECT_NO_THROW(root.finish());
  a.ignore("typo");
  EXPECT_NO_THROW(a.finish());
}

// A complex key ('? [a, b]') is no configuration key: it was reported as "unknown key ''".
TEST(ConfigNode, ComplexKeyIsNamedAsSuch) {
  auto sources = std::make_shared<ConfigSources>(kFile);
  ConfigNode root(load_yaml_text("a: {x: 1}\n? [p, q]\n: 3\n", kFile), "", sources);
  root.ignore("a");
  const std::string m = test::config_error_of([&] { root.finish(); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:2: (top level): a key that is a list, not a name"));
  EXPECT_THAT(m, Not(HasSubstr("''")));
  ConfigNode a = root.child("a");
  a.get_uint("x", std::nullopt);
  EXPECT_NO_THROW(a.finish());
}

// A node's `assumptions` map mirrors its keys: each note comes back with the value it marks, in the
// order written, and where each came from; a note for a value the node does not give, or one that
// is not text, is an error naming the note's line and key path.
TEST(ConfigNode, AssumptionsMirrorTheNodesKeys) {
  auto sources = std::make_shared<ConfigSources>(kFile);
  sources->set("mem.timing.CL_ns", "--set mem.timing.CL_ns=20");
  ConfigNode root(load_yaml_text("mem:\n"                                           // 1
                                 "  preset: x\n"                                    // 2
                                 "  timing: {CL_ns: 20, CWL_ck: 10, tRP_ns: 18}\n"  // 3
                                 "  assumptions:\n"                                 // 4
                                 "    timing: {CWL_ck: kept, CL_ns: guessed}\n"     // 5
                                 "    preset: chosen\n"                             // 6
                                 "bad_key:\n"                                       // 7
                                 "  a: 1\n"                                         // 8
                                 "  assumptions: {b: why}\n"                        // 9
                                 "bad_note:\n"                                      // 10
                                 "  a: 1\n"                                         // 11
                                 "  assumptions: {a: [1]}\n",                       // 12
                                 kFile),
                  "", sources);
  ConfigNode mem = root.child("mem");
  const std::vector<ConfigAssumption> a = mem.assumptions("assumptions");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].key, "timing.CWL_ck");
  EXPECT_EQ(a[0].value, nlohmann::json(10));
  EXPECT_EQ(a[0].why, "kept");
  EXPECT_EQ(a[0].value_from, kFile);
  EXPECT_EQ(a[0].note_from, kFile);
  EXPECT_EQ(a[1].key, "timing.CL_ns");
  EXPECT_EQ(a[1].value, nlohmann::json(20));
  EXPECT_EQ(a[1].value_from, "--set mem.timing.CL_ns=20");  // the user's value, the file's note
  EXPECT_EQ(a[1].note_from, kFile);
  EXPECT_EQ(a[2].key, "preset");
  EXPECT_EQ(a[2].value, nlohmann::json("x"));
  // Read: finish() does not call it unknown. Absent: no notes.
  mem.ignore("preset");
  mem.ignore("timing");
  EXPECT_NO_THROW(mem.finish());
  EXPECT_TRUE(root.child("mem").assumptions("no_such_key").empty());
  std::string m = test::config_error_of([&] { root.child("bad_key").assumptions("assumptions"); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:9: bad_key.assumptions.b: marks bad_key.b as an "
                           "assumption, but bad_key gives no such value"));
  m = test::config_error_of([&] { root.child("bad_note").assumptions("assumptions"); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:12: bad_note.assumptions.a: expected a map of notes"));
}

// A required key that is missing while the map holds an unread key one or two edits from it
// (the user's misspelling, which finish() would only report later) names that key and its line;
// an unrelated key, or one already read, is not offered.
TEST(ConfigNode, MissingKeyNamesALikelyMisspelling) {
  auto sources = std::make_shared<ConfigSources>(kFile);
  ConfigNode root(load_yaml_text("gpus:\n  count: 1\n  clock_mzh: 1980\n  colour: red\n", kFile),
                  "", sources);
  ConfigNode gpus = root.child("gpus");
  std::string m =
      test::config_error_of([&] { gpus.get_double("clock_mhz", std::nullopt, 1, 1e5); });
  EXPECT_THAT(m, HasSubstr("gpus.clock_mhz: missing"));
  EXPECT_THAT(m, HasSubstr("(is 'clock_mzh' on line 3 a misspelling of it?)"));
  // Three edits from "width" ("colour"): no hint.
  m = test::config_error_of([&] { gpus.get_uint("width", std::nullopt); });
  EXPECT_THAT(m, HasSubstr("gpus.width: missing"));
  EXPECT_THAT(m, Not(HasSubstr("misspelling")));
  // "count" was read: it is not offered for a missing "counts".
  gpus.get_uint("count", std::nullopt);
  m = test::config_error_of([&] { gpus.get_uint("counts", std::nullopt); });
  EXPECT_THAT(m, Not(HasSubstr("misspelling")));
}

// 'linkz:' for 'links:': the map is absent, so a key required under it is reported missing; the
// hint names the map's own likely misspelling, also two levels down.
TEST(ConfigNode, MissingKeyUnderAnAbsentMapNamesTheMapsMisspelling) {
  auto sources = std::make_shared<ConfigSources>(kFile);
  ConfigNode root(load_yaml_text("gpus: {count: 1}\nlinkz:\n  gpu_device: {per_gpu: 1}\n", kFile),
                  "", sources);
  ConfigNode links = root.child("links");
  std::string m = test::config_error_of([&] { links.get_uint("per_gpu", std::nullopt); });
  EXPECT_THAT(m, HasSubstr("links.per_gpu: missing"));
  EXPECT_THAT(m, HasSubstr("(is 'linkz' on line 2 a misspelling of 'links'?)"));
  ConfigNode dev = links.child("gpu_device");
  m = test::config_error_of([&] { dev.get_uint("per_gpu", std::nullopt); });
  EXPECT_THAT(m, HasSubstr("links.gpu_device.per_gpu: missing"));
  EXPECT_THAT(m, HasSubstr("a misspelling of 'links'?"));
  // A present map gives no such hint for its own missing keys, nor does an absent map that
  // nothing resembles.
  ConfigNode gpus = root.child("gpus");
  EXPECT_THAT(test::config_error_of([&] { gpus.get_uint("width", std::nullopt); }),
              Not(HasSubstr("misspelling")));
  ConfigNode sw = root.child("switch");
  EXPECT_THAT(test::config_error_of([&] { sw.get_uint("radix", std::nullopt); }),
              Not(HasSubstr("misspelling")));
}

// A bad list entry is named as the entry, at its own line, or as the --set that wrote it alone:
// a --set of dims.0 was reported at the platform file's line of the list, which the user did not
// change (the input audit of 2026-12-05).
TEST(ConfigNode, ListEntryErrorsNameTheEntryAndWhoWroteIt) {
  auto sources = std::make_shared<ConfigSources>(kFile);
  ConfigDoc doc{load_yaml_text("noc:\n"               // 1
                               "  dims:\n"            // 2
                               "    - 4\n"            // 3
                               "    - 0\n"            // 4
                               "  nodes:\n"           // 5
                               "    - [0, 1]\n"       // 6
                               "    - [2]\n"          // 7
                               "  tags: [a, [b]]\n",  // 8
                               kFile),
                sources};
  ConfigNode noc = ConfigNode(doc.root, "", sources).child("noc");
  std::string m = test::config_error_of([&] { noc.get_uint_list("dims", 1, 64); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:4: noc.dims.1: expected an integer in [1, 64]"));
  EXPECT_THAT(m, HasSubstr("got '0'"));
  m = test::config_error_of([&] { noc.get_uint_tuples("nodes", 2, 0, 9); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:7: noc.nodes.1: "));
  EXPECT_THAT(m, HasSubstr("got entry 1 with 1 values"));
  m = test::config_error_of([&] { noc.get_uint_tuples("nodes", 2, 0, 0); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:6: noc.nodes.0.1: "));
  EXPECT_THAT(m, HasSubstr("got entry 0 with a value '1'"));
  m = test::config_error_of([&] { noc.get_string_list("tags"); });
  EXPECT_THAT(m, HasSubstr("my-config.yaml:8: noc.tags.1: "));

  // The same entry written by a --set: the --set is named, not the file's line 4.
  apply_override(doc, "noc.dims.1=65");
  ConfigNode again = ConfigNode(doc.root, "", sources).child("noc");
  m = test::config_error_of([&] { again.get_uint_list("dims", 1, 64); });
  EXPECT_THAT(m, HasSubstr("--set noc.dims.1=65: noc.dims.1: expected an integer in [1, 64]"));
  EXPECT_THAT(m, Not(HasSubstr("my-config.yaml")));
}

TEST(ConfigNode, ErrorsNameTheSourceOfTheSubtree) {
  auto sources = std::make_shared<ConfigSources>("platform.yaml");
  sources->set("workload", "work.yaml");
  ConfigNode root(load_yaml_text("workload: {streams: [{bytes: many}]}\n", "platform.yaml"), "",
                  sources);
  auto streams = root.child("workload").list("streams");
  ASSERT_EQ(streams.size(), 1u);
  const std::string m = test::config_error_of([&] { streams[0].get_bytes("bytes", std::nullopt); });
  EXPECT_THAT(m, HasSubstr("work.yaml"));
  EXPECT_THAT(m, Not(HasSubstr("platform.yaml")));
  EXPECT_THAT(m, HasSubstr("workload.streams.0.bytes"));
}

TEST(ParseBytes, UnitsAndPlainNumbers) {
  EXPECT_EQ(parse_bytes("8GiB"), std::optional<std::uint64_t>(8ULL * 1024 * 1024 * 1024));
  EXPECT_EQ(parse_bytes("8GiB"), std::optional<std::uint64_t>(8589934592ULL));
  EXPECT_EQ(parse_bytes("1.5KiB"), std::optional<std::uint64_t>(1536));
  EXPECT_EQ(parse_bytes("3MB"), std::optional<std::uint64_t>(3000000));
  EXPECT_EQ(parse_bytes("4096"), std::optional<std::uint64_t>(4096));
  EXPECT_EQ(parse_bytes("64 KiB"), std::optional<std::uint64_t>(65536));
  EXPECT_EQ(parse_bytes("128B"), std::optional<std::uint64_t>(128));
  EXPECT_EQ(parse_bytes("2MiB"), std::optional<std::uint64_t>(2 * 1048576));
  EXPECT_EQ(parse_bytes("1TiB"), std::optional<std::uint64_t>(1ULL << 40));
  EXPECT_EQ(parse_bytes("2TB"), std::optional<std::uint64_t>(2000000000000ULL));
  EXPECT_EQ(parse_bytes("0"), std::optional<std::uint64_t>(0));
}

TEST(ParseBytes, RejectsMalformed) {
  EXPECT_EQ(parse_bytes("12XB"), std::nullopt);
  EXPECT_EQ(parse_bytes("-1"), std::nullopt);
  EXPECT_EQ(parse_bytes("1.5B"), std::nullopt);  // not a whole number of bytes
  EXPECT_EQ(parse_bytes(""), std::nullopt);
  EXPECT_EQ(parse_bytes("KiB"), std::nullopt);
  EXPECT_EQ(parse_bytes("1.5.KiB"), std::nullopt);
  EXPECT_EQ(parse_bytes("8gib"), std::nullopt);         // units are case-sensitive
  EXPECT_EQ(parse_bytes("100000000TB"), std::nullopt);  // 1e20 B does not fit in 64 bits
}

TEST(ParseBytes, DecimalFractionsThatAreWholeBytes) {
  // 2.01 KB = 2010 B and 1.07 GB = 1070000000 B exactly; a byte count that is a whole number must
  // not be rejected because of binary floating-point rounding (2.01 * 1000 = 2009.9999999999998).
  EXPECT_EQ(parse_bytes("2.01KB"), std::optional<std::uint64_t>(2010));
  EXPECT_EQ(parse_bytes("1.07GB"), std::optional<std::uint64_t>(1070000000ULL));
  EXPECT_EQ(parse_bytes("0.067GB"), std::optional<std::uint64_t>(67000000ULL));
}

TEST(ParseBytes, LargePlainIntegerIsExactOrRejected) {
  // 2^53 + 1 is not representable as a double; the parser must return the exact value or reject
  // it, never a different number of bytes.
  const auto v = parse_bytes("9007199254740993");
  if (v) {
    EXPECT_EQ(*v, 9007199254740993ULL);
  }
}

ConfigDoc doc_from(const std::string& text) {
  ConfigDoc d;
  d.sources = std::make_shared<ConfigSources>("base.yaml");
  d.root = load_yaml_text(text, "base.yaml");
  return d;
}

TEST(ApplyOverride, ChangesExistingAndCreatesMissingKeys) {
  ConfigDoc d = doc_from("gpus: {count: 8}\nstreams: [{total_bytes: 1MiB}, {total_bytes: 2MiB}]\n");
  apply_override(d, "gpus.count=4");
  apply_override(d, "new_block.width=3");
  apply_override(d, "streams.1.total_bytes=256KiB");
  apply_override(d, "gpus.name=a=b");  // only the first '=' separates key and value
  const YAML::Node& r = d.root;
  EXPECT_EQ(r["gpus"]["count"].Scalar(), "4");
  EXPECT_EQ(r["new_block"]["width"].Scalar(), "3");
  EXPECT_EQ(r["streams"][0]["total_bytes"].Scalar(), "1MiB");
  EXPECT_EQ(r["streams"][1]["total_bytes"].Scalar(), "256KiB");
  EXPECT_EQ(r["gpus"]["name"].Scalar(), "a=b");
  // Each overridden path is attributed to its --set.
  EXPECT_EQ(d.sources->source_of("gpus.count"), "--set gpus.count=4");
  EXPECT_EQ(d.sources->source_of("new_block.width"), "--set new_block.width=3");
  EXPECT_EQ(d.sources->source_of("streams.1.total_bytes"), "--set streams.1.total_bytes=256KiB");
  EXPECT_EQ(d.sources->source_of("streams.0.total_bytes"), "base.yaml");
}

TEST(ApplyOverride, RejectsMalformedAssignments) {
  ConfigDoc d = doc_from("gpus: {count: 8}\nstreams: [{total_bytes: 1MiB}]\n");
  std::string m = test::config_error_of([&] { apply_override(d, "gpus.count"); });
  EXPECT_THAT(m, HasSubstr("gpus.count"));
  EXPECT_THAT(m, HasSubstr("key.path=value"));
  m = test::config_error_of([&] { apply_override(d, "=3"); });
  EXPECT_THAT(m, HasSubstr("key.path=value"));
  m = test::config_error_of([&] { apply_override(d, "gpus..count=3"); });
  EXPECT_THAT(m, HasSubstr("empty key"));
  // A trailing '.' (which splitting at dots alone drops) and a leading one.
  m = test::config_error_of([&] { apply_override(d, "gpus.count.=3"); });
  EXPECT_THAT(m, HasSubstr("empty key"));
  m = test::config_error_of([&] { apply_override(d, ".gpus.count=3"); });
  EXPECT_THAT(m, HasSubstr("empty key"));
  // Index past the end of a one-entry list.
  m = test::config_error_of([&] { apply_override(d, "streams.1.total_bytes=1"); });
  EXPECT_THAT(m, HasSubstr("streams"));
  EXPECT_THAT(m, HasSubstr("list of 1"));
  // Not a number.
  m = test::config_error_of([&] { apply_override(d, "streams.first.total_bytes=1"); });
  EXPECT_THAT(m, HasSubstr("'first' is not an index"));
  // Through a scalar.
  m = test::config_error_of([&] { apply_override(d, "gpus.count.x=1"); });
  EXPECT_THAT(m, HasSubstr("'gpus.count' is a value"));
  // Nothing changed by the failed overrides.
  const YAML::Node& r = d.root;
  EXPECT_EQ(r["gpus"]["count"].Scalar(), "8");
  EXPECT_EQ(r["streams"].size(), 1u);
}

TEST(MergeYaml, MapsMergeScalarsAndListsOverride) {
  const YAML::Node base =
      YAML::Load("a: {x: 1, y: 2, deep: {p: 1, q: 2}}\nb: 1\nc: [1, 2]\nd: 4\n");
  const YAML::Node over = YAML::Load("a: {y: 3, z: 4, deep: {q: 9}}\nb: 5\nc: [9]\nd: {m: 1}\n");
  const YAML::Node m = merge_yaml(base, over);
  EXPECT_EQ(m["a"]["x"].as<int>(), 1);
  EXPECT_EQ(m["a"]["y"].as<int>(), 3);
  EXPECT_EQ(m["a"]["z"].as<int>(), 4);
  EXPECT_EQ(m["a"]["deep"]["p"].as<int>(), 1);
  EXPECT_EQ(m["a"]["deep"]["q"].as<int>(), 9);
  EXPECT_EQ(m["b"].as<int>(), 5);
  ASSERT_TRUE(m["c"].IsSequence());
  ASSERT_EQ(m["c"].size(), 1u);
  EXPECT_EQ(m["c"][0].as<int>(), 9);
  ASSERT_TRUE(m["d"].IsMap());
  EXPECT_EQ(m["d"]["m"].as<int>(), 1);
  // The inputs are unchanged.
  EXPECT_EQ(base["a"]["y"].as<int>(), 2);
  EXPECT_FALSE(base["a"]["z"].IsDefined());
  EXPECT_EQ(base["b"].as<int>(), 1);
}

TEST(MergeYaml, NodesKeepTheirLines) {
  // Errors name a key's line from its node's mark: a merged tree must keep each node's own line
  // (0-based here), wherever it came from, not put everything at line 1 as YAML::Clone does.
  const YAML::Node base = YAML::Load("a:\n  x: 1\n  y: 2\nb:\n  p: 1\n");
  const YAML::Node over = YAML::Load("\n\n\na:\n  y: 3\n  z: 4\nc: 5\n");
  const YAML::Node m = merge_yaml(base, over);
  EXPECT_EQ(m["a"]["x"].Mark().line, 1);  // base's
  EXPECT_EQ(m["a"]["y"].Mark().line, 4);  // over's value
  EXPECT_EQ(m["a"]["z"].Mark().line, 5);
  EXPECT_EQ(m["b"].Mark().line, 4);  // base's map, untouched
  EXPECT_EQ(m["c"].Mark().line, 6);
  // A key over adds keeps its own line too (unknown-key errors point at the key).
  int z_key_line = -1;
  for (const auto& kv : m["a"]) {
    if (kv.first.Scalar() == "z") z_key_line = kv.first.Mark().line;
  }
  EXPECT_EQ(z_key_line, 5);
}

TEST(MergeYaml, InPlaceKeepsTheDestinationsMapsAndMergeYamlsOrder) {
  // A preset (base) merged into the map a user wrote (over), two levels down. Lines are 0-based; a
  // block map's mark is its first key's line, a flow map's its '{'.
  const YAML::Node base = YAML::Load(
      "lanes: 8\n"      // 0
      "flit:\n"         // 1
      "  crc: true\n"   // 2
      "  timing:\n"     // 3
      "    setup: 1\n"  // 4
      "    hold: 2\n"   // 5
      "rate: 1\n");     // 6
  const char* const written =
      "\n"                     // 0
      "\n"                     // 1
      "preset: x\n"            // 2
      "flit:\n"                // 3
      "  width: 4\n"           // 4
      "  timing: {hold: 5}\n"  // 5
      "extra: 1\n"             // 6
      "rate: 2\n";             // 7
  YAML::Node over = YAML::Load(written);
  const YAML::Node& c = over;  // const access: operator[] would insert missing keys
  const YAML::Node flit = c["flit"];
  const YAML::Node timing = c["flit"]["timing"];
  merge_yaml_in_place(base, over);
  // The user's maps are still the user's nodes, at the user's lines (merge_yaml's new maps have
  // none), with the preset's keys in them.
  EXPECT_TRUE(c["flit"].is(flit));
  EXPECT_TRUE(c["flit"]["timing"].is(timing));
  EXPECT_EQ(c["flit"].Mark().line, 4);
  EXPECT_EQ(c["flit"]["timing"].Mark().line, 5);
  EXPECT_EQ(c["flit"]["timing"]["hold"].Mark().line, 5);   // over's value
  EXPECT_EQ(c["flit"]["timing"]["setup"].Mark().line, 4);  // base's
  EXPECT_EQ(c["flit"]["crc"].Mark().line, 2);              // base's
  EXPECT_EQ(c["rate"].Mark().line, 7);
  // merge_yaml's key order (base's keys, then over's new ones) and values (over's win), written
  // out in block style: the flow map {hold: 5} took base's keys in.
  EXPECT_EQ(YAML::Dump(over),
            "lanes: 8\n"
            "flit:\n"
            "  crc: true\n"
            "  timing:\n"
            "    setup: 1\n"
            "    hold: 5\n"
            "  width: 4\n"
            "rate: 2\n"
            "preset: x\n"
            "extra: 1");
  EXPECT_EQ(YAML::Dump(over), YAML::Dump(merge_yaml(base, YAML::Load(written))));
  // base is unchanged.
  EXPECT_EQ(base["flit"]["timing"]["hold"].as<int>(), 2);
  EXPECT_EQ(base["flit"].size(), 2u);
  EXPECT_FALSE(base["extra"].IsDefined());
}

TEST(ConfigSources, LongestPrefixWins) {
  ConfigSources s("platform.yaml");
  s.set("workload", "work.yaml");
  s.set("workload.streams.0.buffer", "--set workload.streams.0.buffer=x");
  s.set("links.gpu_device.lanes", "platforms/presets/link/nvlink4.yaml");
  EXPECT_EQ(s.source_of("gpus.count"), "platform.yaml");
  EXPECT_EQ(s.source_of("workload"), "work.yaml");
  EXPECT_EQ(s.source_of("workload.streams.1.pattern"), "work.yaml");
  EXPECT_EQ(s.source_of("workload.streams.0.buffer.location"), "--set workload.streams.0.buffer=x");
  EXPECT_EQ(s.source_of("workload.streams.0.pattern"), "work.yaml");
  // A prefix only matches whole path segments.
  EXPECT_EQ(s.source_of("workloads.x"), "platform.yaml");
  EXPECT_EQ(s.source_of("workload.streams.0.buffers"), "work.yaml");
  EXPECT_EQ(s.source_of("links.gpu_device.lanes"), "platforms/presets/link/nvlink4.yaml");
  EXPECT_EQ(s.source_of("links.gpu_device.lane_gbps"), "platform.yaml");
  // Order of insertion does not matter.
  ConfigSources t("p");
  t.set("a.b.c", "deep");
  t.set("a", "shallow");
  EXPECT_EQ(t.source_of("a.b.c.d"), "deep");
  EXPECT_EQ(t.source_of("a.b.x"), "shallow");
}

TEST(YamlToJson, TypesScalars) {
  const YAML::Node n = YAML::Load(
      "i: 3\nneg: -7\nf: 1.5\nexp: 1e3\nb: true\nbf: false\nqs: '3'\nqb: \"true\"\ns: hello\n"
      "nul: ~\nlist: [1, x]\nmap: {k: 2}\nbytes: 64KiB\n");
  const nlohmann::json j = yaml_to_json(n);
  EXPECT_TRUE(j["i"].is_number_integer());
  EXPECT_EQ(j["i"].get<long long>(), 3);
  EXPECT_TRUE(j["neg"].is_number_integer());
  EXPECT_EQ(j["neg"].get<long long>(), -7);
  EXPECT_TRUE(j["f"].is_number_float());
  EXPECT_DOUBLE_EQ(j["f"].get<double>(), 1.5);
  EXPECT_TRUE(j["exp"].is_number_float());
  EXPECT_DOUBLE_EQ(j["exp"].get<double>(), 1000.0);
  EXPECT_TRUE(j["b"].is_boolean());
  EXPECT_TRUE(j["b"].get<bool>());
  EXPECT_TRUE(j["bf"].is_boolean());
  EXPECT_FALSE(j["bf"].get<bool>());
  EXPECT_TRUE(j["qs"].is_string());
  EXPECT_EQ(j["qs"].get<std::string>(), "3");
  EXPECT_TRUE(j["qb"].is_string());
  EXPECT_EQ(j["qb"].get<std::string>(), "true");
  EXPECT_TRUE(j["s"].is_string());
  EXPECT_TRUE(j["nul"].is_null());
  ASSERT_TRUE(j["list"].is_array());
  EXPECT_EQ(j["list"][0].get<long long>(), 1);
  EXPECT_EQ(j["list"][1].get<std::string>(), "x");
  EXPECT_EQ(j["map"]["k"].get<long long>(), 2);
  EXPECT_EQ(j["bytes"].get<std::string>(), "64KiB");
}

TEST(LoadYaml, SyntaxErrorNamesSourceAndLine) {
  const std::string m =
      test::config_error_of([] { load_yaml_text("a: 1\nb: [1, 2\n", "broken.yaml"); });
  EXPECT_THAT(m, HasSubstr("broken.yaml"));
  EXPECT_THAT(m, HasSubstr("syntax"));
  const std::string top = test::config_error_of([] { load_yaml_text("- 1\n- 2\n", "list.yaml"); });
  EXPECT_THAT(top, HasSubstr("list.yaml"));
  const std::string missing =
      test::config_error_of([] { load_yaml_file("/nonexistent/dir/x.yaml"); });
  EXPECT_THAT(missing, HasSubstr("/nonexistent/dir/x.yaml"));
}

// A second document after '---' would be dropped unread: an error naming its line. A file that
// starts with '---' (one document) is fine.
TEST(LoadYaml, SecondDocumentIsAnError) {
  const std::string m = test::config_error_of(
      [] { load_yaml_text("gpus: {count: 1}\n---\ngpus: {count: 99}\n", "two.yaml"); });
  EXPECT_THAT(m, HasSubstr("two.yaml:3: a second YAML document"));
  EXPECT_EQ(load_yaml_text("---\ngpus: {count: 2}\n", "one.yaml")["gpus"]["count"].as<int>(), 2);
}

// yaml-cpp keeps both entries of a key written twice: lookups find the first, while iteration
// (config.yaml, stats.json) ends with the second, so a rerun from config.yaml would differ.
TEST(LoadYaml, DuplicateKeyNamesBothLinesAndThePath) {
  const std::string nested = test::config_error_of([] {
    load_yaml_text(
        "name: w\n"                  // 1
        "streams:\n"                 // 2
        "  - pattern: sequential\n"  // 3
        "    read_fraction: 1.0\n"   // 4
        "    read_fraction: 0.0\n",  // 5
        "w.yaml");
  });
  EXPECT_THAT(nested,
              HasSubstr("w.yaml:5: streams.0.read_fraction: duplicate key (first on line 4)"));
  const std::string top = test::config_error_of(
      [] { load_yaml_text("gpus: {count: 1}\nlinks: {}\ngpus: {count: 2}\n", "p.yaml"); });
  EXPECT_THAT(top, HasSubstr("p.yaml:3: gpus: duplicate key (first on line 1)"));
  const std::string flow =
      test::config_error_of([] { load_yaml_text("a:\n  b: {x: 1, x: 2}\n", "f.yaml"); });
  EXPECT_THAT(flow, HasSubstr("f.yaml:2: a.b.x: duplicate key (first on line 2)"));
  // The same key in two different maps is no duplicate.
  EXPECT_NO_THROW(load_yaml_text("a: {x: 1}\nb: {x: 1}\nc: [{x: 1}, {x: 2}]\n", "ok.yaml"));
}

TEST(ApplyOverride, DuplicateKeyInAValueIsAnError) {
  ConfigDoc d;
  d.sources = std::make_shared<ConfigSources>("base.yaml");
  d.root = load_yaml_text("a: {b: 1}\n", "base.yaml");
  const std::string m = test::config_error_of([&] { apply_override(d, "a={x: 1, x: 2}"); });
  EXPECT_THAT(m, HasSubstr("--set a={x: 1, x: 2}: a.x: duplicate key"));
}

// stats.json (nlohmann::json) cannot hold text that is not UTF-8: refused where it is read.
TEST(LoadYaml, InvalidUtf8NamesFileLineAndKey) {
  const std::string value =
      test::config_error_of([] { load_yaml_text("name: x\ndescription: caf\xff\n", "u.yaml"); });
  EXPECT_THAT(value, HasSubstr("u.yaml:2: description: not valid UTF-8 (byte 0xff after \"caf\")"));
  const std::string in_list =
      test::config_error_of([] { load_yaml_text("s:\n  - {tag: \"a\xc3\"}\n", "u.yaml"); });
  EXPECT_THAT(in_list, HasSubstr("u.yaml:2: s.0.tag: not valid UTF-8 (byte 0xc3 after \"a\")"));
  const std::string key =
      test::config_error_of([] { load_yaml_text("a:\n  k\xe9y: 1\n", "u.yaml"); });
  EXPECT_THAT(key, HasSubstr("u.yaml:2: a.k\\xe9y: the key is not valid UTF-8"));
  // Overlong forms, surrogates and code points above U+10FFFF are not UTF-8 either.
  for (const char* bad :
       {"x: \xc0\xaf\n", "x: \xed\xa0\x80\n", "x: \xf4\x90\x80\x80\n", "x: \xe2\x82\n"}) {
    EXPECT_THAT(test::config_error_of([&] { load_yaml_text(bad, "u.yaml"); }),
                HasSubstr("u.yaml:1: x: not valid UTF-8"))
        << bad;
  }
  // Two-, three- and four-byte characters are.
  const YAML::Node ok =
      load_yaml_text("x: \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n", "u.yaml");
  EXPECT_EQ(ok["x"].Scalar(), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST(ApplyOverride, InvalidUtf8NamesTheSetAndKey) {
  ConfigDoc d;
  d.sources = std::make_shared<ConfigSources>("base.yaml");
  d.root = load_yaml_text("a: 1\n", "base.yaml");
  const std::string value =
      test::config_error_of([&] { apply_override(d, "description=caf\xe9"); });
  EXPECT_THAT(
      value,
      HasSubstr("--set description: the value is not valid UTF-8 (byte 0xe9 after \"caf\")"));
  const std::string key = test::config_error_of([&] { apply_override(d, "a\xff.b=1"); });
  EXPECT_THAT(key, HasSubstr("--set 'a\\xff.b=1': the key path is not valid UTF-8"));
}

// yaml-cpp shares an aliased node instead of copying it: an alias inside the node it names makes
// the tree a cycle, which every recursive walk followed until the stack overflowed (SIGSEGV).
TEST(LoadYaml, AliasInsideTheNodeItNamesIsAnError) {
  const std::string in_list =
      test::config_error_of([] { load_yaml_text("a: &a [*a]\n", "c.yaml"); });
  EXPECT_THAT(in_list, HasSubstr("c.yaml:1: a.0: an alias to a, which contains it; expected an "
                                 "alias that does not refer to a node containing it"));
  const std::string in_map = test::config_error_of([] {
    load_yaml_text(
        "x: 1\n"      // 1
        "b: &b\n"     // 2
        "  c: 2\n"    // 3
        "  d: *b\n",  // 4
        "c.yaml");
  });
  // The alias is the anchored node itself to yaml-cpp, so the line is the anchor's.
  EXPECT_THAT(in_map, HasSubstr("c.yaml:2: b.d: an alias to b, which contains it"));
  const std::string deeper =
      test::config_error_of([] { load_yaml_text("a: &a {b: [1, {c: *a}]}\n", "c.yaml"); });
  EXPECT_THAT(deeper, HasSubstr("c.yaml:1: a.b.1.c: an alias to a, which contains it"));
  const std::string whole =
      test::config_error_of([] { load_yaml_text("&top {a: *top}\n", "c.yaml"); });
  EXPECT_THAT(whole, HasSubstr("c.yaml:1: a: an alias to the whole document, which contains it"));
}

TEST(ApplyOverride, AliasInsideTheNodeItNamesIsAnError) {
  ConfigDoc d;
  d.sources = std::make_shared<ConfigSources>("base.yaml");
  d.root = load_yaml_text("gpus: {count: 1}\n", "base.yaml");
  EXPECT_THAT(test::config_error_of([&] { apply_override(d, "gpus.foo=&a [*a]"); }),
              HasSubstr("--set gpus.foo=&a [*a]: gpus.foo.0: an alias to gpus.foo, which contains "
                        "it; expected an alias that does not refer to a node containing it"));
  EXPECT_THAT(test::config_error_of([&] { apply_override(d, "gpus.foo=&a {b: *a}"); }),
              HasSubstr("--set gpus.foo=&a {b: *a}: gpus.foo.b: an alias to gpus.foo"));
  EXPECT_THAT(test::config_error_of([&] { apply_override(d, "organization={a: &a [*a]}"); }),
              HasSubstr("organization.a.0: an alias to organization.a"));
}

// Anchors and aliases that do not refer to a node containing them are plain YAML: the aliased
// node is read wherever it is named, also by --set.
TEST(LoadYaml, AliasToAnotherNodeIsRead) {
  const std::string text =
      "base: &b {count: 2, clock_mhz: 1500}\n"
      "gpus: *b\n"
      "list: [*b, *b, &n 7, *n]\n";
  const std::shared_ptr<ConfigSources> sources = std::make_shared<ConfigSources>("ok.yaml");
  ConfigNode root(load_yaml_text(text, "ok.yaml"), "", sources);
  ConfigNode gpus = root.child("gpus");
  EXPECT_EQ(gpus.get_uint("count", std::nullopt), 2u);
  EXPECT_DOUBLE_EQ(gpus.get_double("clock_mhz", std::nullopt, 0, 1e6), 1500.0);
  const nlohmann::json j = yaml_to_json(load_yaml_text(text, "ok.yaml"));
  EXPECT_EQ(j["list"][1]["count"].get<long long>(), 2);
  EXPECT_EQ(j["list"][3].get<long long>(), 7);
  ConfigDoc d;
  d.sources = sources;
  d.root = load_yaml_text("gpus: {count: 1}\n", "base.yaml");
  apply_override(d, "gpus.hub=[&h {w: 1}, *h]");
  EXPECT_EQ(d.root["gpus"]["hub"][1]["w"].as<int>(), 1);
}

// yaml-cpp shares an aliased node instead of copying it: a --set through one would change every
// place that names it (ingress 3 made egress 3). Refused; a key beside the alias is set as usual.
TEST(ApplyOverride, KeyInsideAnAliasedNodeIsRefused) {
  ConfigDoc d;
  d.sources = std::make_shared<ConfigSources>("a.yaml");
  d.root = load_yaml_text(
      "port: {ingress: &c 8, egress: *c, tags: 4}\n"  // 1
      "l1: &l {lanes: 2}\n"                           // 2
      "l2: *l\n",                                     // 3
      "a.yaml");
  EXPECT_THAT(test::config_error_of([&] { apply_override(d, "port.ingress=3"); }),
              HasSubstr("--set port.ingress: port.ingress is a YAML anchor's node (line 1) used 2 "
                        "times through aliases"));
  EXPECT_THAT(test::config_error_of([&] { apply_override(d, "port.egress=3"); }),
              HasSubstr("port.egress is a YAML anchor's node"));
  EXPECT_THAT(test::config_error_of([&] { apply_override(d, "l2.lanes=4"); }),
              HasSubstr("--set l2.lanes: l2 is a YAML anchor's node (line 2) used 2 times"));
  EXPECT_THAT(test::config_error_of([&] { apply_override(d, "l1.width=4"); }),
              HasSubstr("l1 is a YAML anchor's node"));
  apply_override(d, "port.tags=16");
  EXPECT_EQ(d.root["port"]["tags"].as<int>(), 16);
  EXPECT_EQ(d.root["port"]["egress"].as<int>(), 8);
  EXPECT_EQ(d.root["l2"]["lanes"].as<int>(), 2);
}

// Nested aliases ("billion laughs") make a tree far larger than its text: each level names the one
// below ten times, so 500 bytes are 10^9 nodes to every walk. Refused at 1,000,000 nodes.
TEST(LoadYaml, DocumentOfMoreThanAMillionNodesOnceExpandedIsAnError) {
  std::string laughs = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    laughs += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) laughs += (k ? ", *l" : "*l") + std::to_string(i - 1);
    laughs += "]\n";
  }
  EXPECT_THAT(test::config_error_of([&] { load_yaml_text(laughs, "laughs.yaml"); }),
              HasSubstr("more than 1000000 nodes once aliases are expanded; expected a document "
                        "of at most 1000000 nodes"));

  // Exactly at the limit, counting the document, every key, value and list entry:
  //   the document                                     1
  //   key a, list a (1) and its 999 entries            1 + 1 + 999     = 1001
  //   key b, list b (1) and 998 aliases of a (1000 each)  1 + 1 + 998000 = 998002
  //   key c, list c (1) and its n entries              1 + 1 + n
  // 1 + 1001 + 998002 + 2 + n = 1000000 for n = 994.
  const auto document = [](int n) {
    std::string text = "a: &a [x";
    for (int i = 1; i < 999; ++i) text += ", x";
    text += "]\nb: [*a";
    for (int i = 1; i < 998; ++i) text += ", *a";
    text += "]\nc: [x";
    for (int i = 1; i < n; ++i) text += ", x";
    return text + "]\n";
  };
  EXPECT_NO_THROW(load_yaml_text(document(994), "big.yaml"));
  EXPECT_THAT(test::config_error_of([&] { load_yaml_text(document(995), "big.yaml"); }),
              HasSubstr("big.yaml:3: c.994: more than 1000000 nodes"));

  // The same limit for a --set value, which is a document of its own.
  ConfigDoc d;
  d.sources = std::make_shared<ConfigSources>("base.yaml");
  d.root = load_yaml_text("gpus: {count: 1}\n", "base.yaml");
  std::string value = "{" + laughs.substr(0, laughs.size() - 1) + "}";
  for (std::size_t at = value.find('\n'); at != std::string::npos; at = value.find('\n')) {
    value.replace(at, 1, ", ");
  }
  EXPECT_THAT(test::config_error_of([&] { apply_override(d, "gpus.foo=" + value); }),
              HasSubstr("more than 1000000 nodes once aliases are expanded"));
}

// Depth is bounded too, so that no recursive walk can run out of stack: at most 100 levels.
TEST(LoadYaml, DocumentNestedMoreThanAHundredLevelsIsAnError) {
  // "a: " then k nested lists around x: the list under a is level 1, x is level k + 1.
  const auto nested = [](int k) {
    return "a: " + std::string(k, '[') + "x" + std::string(k, ']') + "\n";
  };
  EXPECT_NO_THROW(load_yaml_text(nested(99), "deep.yaml"));
  const std::string m = test::config_error_of([&] { load_yaml_text(nested(100), "deep.yaml"); });
  EXPECT_THAT(m, HasSubstr("deep.yaml:1: a.0.0."));
  EXPECT_THAT(m, HasSubstr("nested 101 levels deep once aliases are expanded; expected at most "
                           "100 levels"));
}

// yaml-cpp reads a merge key as an ordinary key named '<<': the keys it was meant to bring in were
// reported missing ("gpus.count: missing"). Named for what it is.
TEST(LoadYaml, MergeKeyIsAnError) {
  const std::string m = test::config_error_of([] {
    load_yaml_text(
        "base: &b {count: 2}\n"  // 1
        "gpus:\n"                // 2
        "  <<: *b\n"             // 3
        "  clock_mhz: 1500\n",   // 4
        "m.yaml");
  });
  EXPECT_THAT(m, HasSubstr("m.yaml:3: gpus.<<: a merge key, which famsim does not support; "
                           "expected the keys written out in the map"));
  // Quoted, it is only a key of that name (an unknown one, for the strict reader).
  EXPECT_NO_THROW(load_yaml_text("gpus: {'<<': 1}\n", "m.yaml"));
}

TEST(LoadYaml, DirectoryIsNotAFile) {
  const std::string dir = ::testing::TempDir();
  const std::string m = test::config_error_of([&] { load_yaml_file(dir); });
  EXPECT_THAT(m, HasSubstr(dir + ": is a directory; expected a YAML file"));
}

}  // namespace
}  // namespace famsim
