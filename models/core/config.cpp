#include "models/core/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <utility>

namespace famsim {

namespace {

std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list";
  return "a map";
}

std::string join(const std::set<std::string>& keys) {
  std::string s;
  for (const auto& k : keys) {
    if (!s.empty()) s += ", ";
    s += k;
  }
  return s;
}

bool parse_uint(const std::string& s, std::uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

bool parse_double(const std::string& s, double& out) {
  // The program never calls setlocale, so strtod reads the C locale's '.' decimal point.
  if (s.empty()) return false;
  // A decimal number only, as the integer keys take: strtod also reads hex ("clock_mhz: 0x10"
  // was 16 MHz, where gpus.count: 0x10 is refused), hex floats and leading blanks.
  if (s.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  out = v;
  return true;
}

std::string fmt_num(double v) { return fmt::format("{}", v); }

// Where the first byte of `s` that is not well-formed UTF-8 is (RFC 3629: no overlong forms, no
// UTF-16 surrogates, nothing above U+10FFFF: what nlohmann::json accepts when it writes
// stats.json), or npos.
std::size_t invalid_utf8_at(const std::string& s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = byte(i);
    std::size_t n = 0;                   // continuation bytes
    unsigned char lo = 0x80, hi = 0xbf;  // range of the first continuation byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c == 0xe0) lo = 0xa0;  // overlong
      if (c == 0xed) hi = 0x9f;  // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c == 0xf0) lo = 0x90;  // overlong
      if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + n >= s.size()) return i;  // cut short by the end of the text
    if (byte(i + 1) < lo || byte(i + 1) > hi) return i;
    for (std::size_t k = 2; k <= n; ++k) {
      if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return i;
    }
    i += n + 1;
  }
  return std::string::npos;
}

// Text for an error message: printable ASCII as is, any other byte as \xNN, at most 40 bytes.
std::string printable(const std::string& s) {
  constexpr std::size_t kMaxShown = 40;
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < kMaxShown; ++i) {
    const unsigned char u = static_cast<unsigned char>(s[i]);
    out += u >= 0x20 && u < 0x7f ? std::string(1, s[i]) : fmt::format("\\x{:02x}", u);
  }
  if (s.size() > kMaxShown) out += "...";
  return out;
}

// "" if `text` is UTF-8, else what is wrong with it ("not valid UTF-8 (byte 0xe9 after
// \"caf\"); expected UTF-8 text").
std::string utf8_problem(const std::string& text) {
  const std::size_t at = invalid_utf8_at(text);
  if (at == std::string::npos) return "";
  return fmt::format("not valid UTF-8 (byte {:#04x} after \"{}\"); expected UTF-8 text",
                     static_cast<unsigned char>(text[at]), printable(text.substr(0, at)));
}

// What yaml-cpp lets through and the strict reader could not see later, checked once per document
// (a file or a --set value) as soon as it is parsed, before anything else walks it:
// - an alias inside the node it names (`a: &a [*a]`): yaml-cpp does not copy an aliased node but
//   shares it, so the tree is a cycle that every recursive walk (this one, yaml_to_json, the
//   emitter) follows until the stack overflows;
// - a document too large or too deep once its aliases are expanded: ten short lines of aliases
//   nested ten deep ("billion laughs") are a tree of 10^9 nodes to every walk;
// - a merge key (`<<: *base`), which yaml-cpp 0.7 reads as an ordinary key named '<<', so that the
//   keys it was meant to bring in would be reported missing;
// - a key given twice in one map (yaml-cpp keeps both: a lookup finds the first, iteration, and so
//   config.yaml and stats.json, the second);
// - text that is not UTF-8 (which stats.json cannot hold).
// Every other walk over a configuration tree relies on this: it is a tree, of at most
// kMaxYamlNodes nodes nested at most kMaxYamlDepth deep per document.
class YamlTreeCheck {
 public:
  // `source` names the file, or the --set.
  explicit YamlTreeCheck(std::string source)
      : source_(std::move(source)), is_set_(source_.rfind("--set", 0) == 0) {}

  // `path` is the key path of `n` ("" for the whole document).
  void visit(const YAML::Node& n, const std::string& path) {
    for (const auto& [open, open_path] : open_) {
      if (n.is(open)) {
        throw ConfigError(fmt::format(
            "{}: {}: an alias to {}, which contains it; expected an alias that does not refer to "
            "a node containing it",
            where(n), shown(path), open_path.empty() ? "the whole document" : open_path));
      }
    }
    count(n, path);
    if (open_.size() > kMaxYamlDepth) {
      throw ConfigError(fmt::format(
          "{}: {}: nested {} levels deep once aliases are expanded; expected at most {} levels",
          where(n), shown(path), open_.size(), kMaxYamlDepth));
    }
    const auto sub = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
    if (n.IsScalar()) {
      const std::string problem = utf8_problem(n.Scalar());
      if (!problem.empty()) {
        throw ConfigError(fmt::format("{}: {}: {}", where(n), shown(path), problem));
      }
    } else if (n.IsSequence()) {
      open_.emplace_back(n, path);
      std::size_t i = 0;
      for (const auto& e : n) visit(e, sub(std::to_string(i++)));
      open_.pop_back();
    } else if (n.IsMap()) {
      open_.emplace_back(n, path);
      std::map<std::string, YAML::Node> first;
      for (const auto& kv : n) {
        if (!kv.first.IsScalar()) {  // a complex key: never a configuration key
          visit(kv.first, path);
          visit(kv.second, path);
          continue;
        }
        const std::string key = kv.first.Scalar();
        const std::string problem = utf8_problem(key);
        if (!problem.empty()) {
          throw ConfigError(
              fmt::format("{}: {}: the key is {}", where(kv.first), sub(printable(key)), problem));
        }
        count(kv.first, sub(key));
        // Plain, not quoted: '<<' in quotes is only a key of that name (and an unknown one).
        if (key == "<<" && kv.first.Tag() != "!") {
          throw ConfigError(fmt::format(
              "{}: {}: a merge key, which famsim does not support; expected the keys written out "
              "in the map",
              where(kv.first), sub(key)));
        }
        const auto [it, fresh] = first.emplace(key, kv.first);
        if (!fresh) {
          const YAML::Mark m = it->second.Mark();
          throw ConfigError(fmt::format(
              "{}: {}: duplicate key{}; expected each key once in a map", where(kv.first), sub(key),
              is_set_ || m.is_null() ? "" : fmt::format(" (first on line {})", m.line + 1)));
        }
        visit(kv.second, sub(key));
      }
      open_.pop_back();
    }
  }

 private:
  std::string where(const YAML::Node& at) const {
    const YAML::Mark m = at.Mark();
    return is_set_ || m.is_null() ? source_ : fmt::format("{}:{}", source_, m.line + 1);
  }
  static std::string shown(const std::string& path) { return path.empty() ? "(top level)" : path; }
  // One more node (key, value or list entry) of the document as its aliases expand.
  void count(const YAML::Node& n, const std::string& path) {
    if (++nodes_ > kMaxYamlNodes) {
      throw ConfigError(fmt::format(
          "{}: {}: more than {} nodes once aliases are expanded; expected a document of at most "
          "{} nodes (keys, values and list entries) once its aliases are expanded",
          where(n), shown(path), kMaxYamlNodes, kMaxYamlNodes));
    }
  }

  std::string source_;
  bool is_set_;
  std::size_t nodes_ = 0;
  // The maps and lists from the document's root down to the node being visited, with their key
  // paths: a node that is one of them is an alias inside the node it names.
  std::vector<std::pair<YAML::Node, std::string>> open_;
};

}  // namespace

std::string ConfigSources::source_of(const std::string& path) const {
  std::string best = default_;
  std::size_t best_len = 0;
  bool found = false;
  for (const auto& [prefix, source] : by_path_) {
    const bool match = path == prefix || prefix.empty() ||
                       (path.size() > prefix.size() &&
                        path.compare(0, prefix.size(), prefix) == 0 && path[prefix.size()] == '.');
    if (match && (!found || prefix.size() >= best_len)) {
      best = source;
      best_len = prefix.size();
      found = true;
    }
  }
  return best;
}

const ConfigSources::PresetChoice* ConfigSources::preset_of(const std::string& path) const {
  const PresetChoice* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& [prefix, choice] : presets_) {
    const bool match = path == prefix ||
                       (path.size() > prefix.size() &&
                        path.compare(0, prefix.size(), prefix) == 0 && path[prefix.size()] == '.');
    if (match && (!best || prefix.size() >= best_len)) {
      best = &choice;
      best_len = prefix.size();
    }
  }
  return best;
}

YAML::Node load_yaml_file(const std::string& path) {
  // A directory opens like a file and reads as nothing: an empty document, which the reader would
  // report as a missing key.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(path + ": is a directory; expected a YAML file");
  }
  std::ifstream in(path);
  // The reason (no such file, permission denied) tells a typo from a file the user cannot read.
  if (!in) throw ConfigError(path + ": cannot read file (" + std::strerror(errno) + ")");
  std::stringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw ConfigError(path + ": cannot read file (" + std::strerror(errno) + ")");
  return load_yaml_text(buf.str(), path);
}

YAML::Node load_yaml_text(const std::string& text, const std::string& source) {
  try {
    // One document per file: a second one (after a '---') would otherwise be dropped unread.
    const std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.size() > 1) {
      throw ConfigError(
          fmt::format("{}:{}: a second YAML document (after '---'); expected one "
                      "document per file",
                      source, docs[1].Mark().line + 1));
    }
    YAML::Node n = docs.empty() ? YAML::Node() : docs[0];
    if (n.IsNull() || !n.IsDefined()) return YAML::Node(YAML::NodeType::Map);
    if (!n.IsMap()) throw ConfigError(source + ": expected a YAML map at the top level");
    YamlTreeCheck(source).visit(n, "");
    return n;
  } catch (const YAML::ParserException& e) {
    throw ConfigError(fmt::format("{}:{}:{}: YAML syntax error: {}", source, e.mark.line + 1,
                                  e.mark.column + 1, e.msg));
  }
}

namespace {

// How many times each of `targets` occurs in the tree under `n`, aliases followed (the tree is
// bounded: YamlTreeCheck checked it when it was loaded).
void count_occurrences(const YAML::Node& n, const std::vector<YAML::Node>& targets,
                       std::vector<unsigned>& counts) {
  for (std::size_t i = 0; i < targets.size(); ++i) counts[i] += n.is(targets[i]) ? 1 : 0;
  if (n.IsSequence()) {
    for (const auto& e : n) count_occurrences(e, targets, counts);
  } else if (n.IsMap()) {
    for (const auto& kv : n) count_occurrences(kv.second, targets, counts);
  }
}

// A --set writes into the nodes on its path. yaml-cpp shares an aliased node rather than copying
// it (`ingress: &c 8` and `egress: *c` are one node), so a --set through one would change every
// place that uses the alias. Refused, naming a place that shares it.
void refuse_shared_path(const YAML::Node& root, const std::vector<std::string>& segs,
                        const std::string& path) {
  std::vector<YAML::Node> on_path;  // below the root, as far as the path exists
  std::vector<std::string> names;
  YAML::Node cur;
  cur.reset(root);
  std::string walked;
  for (const std::string& seg : segs) {
    YAML::Node next;
    if (cur.IsMap() && cur[seg].IsDefined()) {
      next.reset(cur[seg]);
    } else if (std::uint64_t idx; cur.IsSequence() && parse_uint(seg, idx) && idx < cur.size()) {
      next.reset(cur[idx]);
    } else {
      break;
    }
    walked += (walked.empty() ? "" : ".") + seg;
    on_path.push_back(next);
    names.push_back(walked);
    cur.reset(next);
  }
  if (on_path.empty()) return;
  std::vector<unsigned> counts(on_path.size(), 0);
  count_occurrences(root, on_path, counts);
  for (std::size_t i = 0; i < on_path.size(); ++i) {
    if (counts[i] < 2) continue;
    const YAML::Mark m = on_path[i].Mark();
    const std::string reason = fmt::format(
        "{} is a YAML anchor's node{} used {} times through aliases, so setting it would change "
        "each of them; expected a key that is written out once (write the aliased values out in "
        "the file to vary one)",
        names[i], m.is_null() ? "" : fmt::format(" (line {})", m.line + 1), counts[i]);
    throw ConfigError("--set " + path + ": " + reason, path, reason);
  }
}

}  // namespace

void apply_override(ConfigDoc& doc, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError("--set '" + assignment + "': expected key.path=value");
  }
  const std::string path = assignment.substr(0, eq);
  const std::string value_text = assignment.substr(eq + 1);
  if (const std::string problem = utf8_problem(path); !problem.empty()) {
    throw ConfigError("--set '" + printable(assignment) + "': the key path is " + problem);
  }
  if (const std::string problem = utf8_problem(value_text); !problem.empty()) {
    throw ConfigError("--set " + path + ": the value is " + problem);
  }
  std::vector<std::string> segs;
  std::stringstream ss(path);
  for (std::string seg; std::getline(ss, seg, '.');) {
    if (seg.empty()) throw ConfigError("--set '" + assignment + "': empty key in the path");
    segs.push_back(seg);
  }
  // getline drops what follows a final '.': "gpus.count." would otherwise set gpus.count.
  if (path.back() == '.') throw ConfigError("--set '" + assignment + "': empty key in the path");
  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::Exception&) {
    value = YAML::Node(value_text);
  }
  if (!value.IsDefined() || value.IsNull()) value = YAML::Node(value_text);
  YamlTreeCheck("--set " + assignment).visit(value, path);

  // The path leads nowhere in this document: an error about the key path, not the value.
  auto bad_path = [&](const std::string& reason) {
    return ConfigError("--set " + path + ": " + reason, path, reason);
  };
  refuse_shared_path(doc.root, segs, path);
  YAML::Node cur;
  cur.reset(doc.root);
  std::string walked;
  std::string first_created;  // the shallowest key this override creates
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const std::string& seg = segs[i];
    walked += (walked.empty() ? "" : ".") + seg;
    const bool last = i + 1 == segs.size();
    if (cur.IsSequence()) {
      std::uint64_t idx;
      if (!parse_uint(seg, idx) || idx >= cur.size()) {
        throw bad_path(fmt::format("'{}' is a list of {} entries; '{}' is not an index into it",
                                   walked.substr(0, walked.size() - seg.size() - 1), cur.size(),
                                   seg));
      }
      if (last) {
        doc.sources->note_overridden(path, yaml_to_json(cur[idx]));
        cur[idx] = value;
      } else {
        YAML::Node next;
        next.reset(cur[idx]);
        cur.reset(next);
      }
    } else {
      if (!cur.IsMap() && !cur.IsNull()) {
        throw bad_path(fmt::format("'{}' is a value, not a map",
                                   walked.substr(0, walked.size() - seg.size() - 1)));
      }
      if (last) {
        doc.sources->note_overridden(
            path, cur.IsMap() && cur[seg].IsDefined() ? yaml_to_json(cur[seg]) : nlohmann::json());
        cur[seg] = value;
      } else {
        if (!cur[seg].IsDefined() || cur[seg].IsNull()) {
          cur[seg] = YAML::Node(YAML::NodeType::Map);
          if (first_created.empty()) first_created = walked;
        }
        YAML::Node next;
        next.reset(cur[seg]);
        cur.reset(next);
      }
    }
  }
  doc.sources->set(path, "--set " + assignment);
  // A key the override invented is reported at its shallowest new level: name the --set there.
  if (!first_created.empty()) doc.sources->set(first_created, "--set " + assignment);
}

void apply_overrides(ConfigDoc& doc, const std::vector<std::string>& assignments) {
  std::map<std::string, const std::string*> first;  // key path -> its first assignment
  for (const std::string& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) continue;  // apply_override says what is wrong
    const auto [it, fresh] = first.emplace(a.substr(0, eq), &a);
    if (!fresh) {
      throw ConfigError(fmt::format(
          "--set {}: duplicate key (first --set {}); expected each key once on the command line",
          printable(a), printable(*it->second)));
    }
  }
  for (const std::string& a : assignments) apply_override(doc, a);
}

namespace {

// Writes merge_yaml(base, over) of two maps into the map `out`: a new map, or `over` itself, which
// is then merged in place all the way down (each map of `over` that merges with one of base's is
// rewritten where it is, so it keeps its node and with it its mark). force_insert with the
// inputs' own key and value nodes shares them (operator[] would make a new key node, without a
// place in any file). Keys in base's order, then over's new ones.
void merge_maps_into(YAML::Node out, const YAML::Node& base, const YAML::Node& over) {
  const bool in_place = out.is(over);
  std::vector<std::pair<YAML::Node, YAML::Node>> merged;  // key and value nodes, in order
  for (const auto& b : base) {
    const std::string key = b.first.Scalar();
    bool found = false;
    for (const auto& o : over) {
      if (o.first.Scalar() != key) continue;
      if (b.second.IsMap() && o.second.IsMap()) {
        YAML::Node into = in_place ? o.second : YAML::Node(YAML::NodeType::Map);
        merge_maps_into(into, b.second, o.second);
        merged.emplace_back(o.first, into);
      } else {
        merged.emplace_back(o.first, o.second);
      }
      found = true;
      break;
    }
    if (!found) merged.emplace_back(b.first, b.second);
  }
  for (const auto& o : over) {
    if (!base[o.first.Scalar()].IsDefined()) merged.emplace_back(o.first, o.second);
  }
  if (in_place) {
    std::vector<std::string> keys;
    for (const auto& o : over) keys.push_back(o.first.Scalar());
    for (const std::string& k : keys) out.remove(k);
    // Written out as a new map is (config.yaml), not on one line as a flow map
    // ({preset: nvlink4, per_gpu: 18}) with base's keys in it.
    out.SetStyle(YAML::EmitterStyle::Default);
  }
  for (const auto& [key, value] : merged) out.force_insert(key, value);
}

}  // namespace

YAML::Node merge_yaml(const YAML::Node& base, const YAML::Node& over) {
  if (!base.IsMap() || !over.IsMap()) return over;
  YAML::Node out(YAML::NodeType::Map);
  merge_maps_into(out, base, over);
  return out;
}

void merge_yaml_in_place(const YAML::Node& base, YAML::Node over) {
  if (base.IsMap() && over.IsMap()) merge_maps_into(over, base, over);
}

nlohmann::json yaml_to_json(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return nullptr;
  if (n.IsSequence()) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& e : n) a.push_back(yaml_to_json(e));
    return a;
  }
  if (n.IsMap()) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& kv : n) o[kv.first.Scalar()] = yaml_to_json(kv.second);
    return o;
  }
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted in the source: a string
  static const std::regex int_re("[-+]?[0-9]+");
  static const std::regex float_re("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (std::regex_match(s, int_re)) {
    try {
      return std::stoll(s);
    } catch (const std::out_of_range&) {
      return s;
    }
  }
  if (std::regex_match(s, float_re)) return std::stod(s);
  return s;
}

std::string yaml_to_text(const YAML::Node& n) {
  YAML::Emitter out;
  out << n;
  return std::string(out.c_str()) + "\n";
}

std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  static const std::regex re(
      "\\s*([0-9]{1,20})(\\.([0-9]{1,18}))?\\s*(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)?\\s*");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  static const std::map<std::string, std::uint64_t> scale = {{"B", 1},
                                                             {"KiB", 1ULL << 10},
                                                             {"MiB", 1ULL << 20},
                                                             {"GiB", 1ULL << 30},
                                                             {"TiB", 1ULL << 40},
                                                             {"KB", 1000},
                                                             {"MB", 1000000},
                                                             {"GB", 1000000000},
                                                             {"TB", 1000000000000ULL}};
  const unsigned __int128 unit = scale.at(m[4].matched ? m[4].str() : "B");
  // Exact decimal arithmetic: integer part x unit + fraction digits x unit / 10^digits, which
  // must come out a whole number of bytes.
  unsigned __int128 whole = 0;
  for (char c : m[1].str()) whole = whole * 10 + static_cast<unsigned>(c - '0');
  unsigned __int128 bytes = whole * unit;
  if (m[3].matched) {
    unsigned __int128 frac = 0, denom = 1;
    for (char c : m[3].str()) {
      frac = frac * 10 + static_cast<unsigned>(c - '0');
      denom *= 10;
    }
    if ((frac * unit) % denom != 0) return std::nullopt;
    bytes += frac * unit / denom;
  }
  if (bytes > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

ConfigNode::ConfigNode(YAML::Node node, std::string path, std::shared_ptr<ConfigSources> sources)
    : path_(std::move(path)), sources_(std::move(sources)) {
  if (!node.IsDefined() || node.IsNull()) {
    node_ = YAML::Node(YAML::NodeType::Map);
  } else {
    node_.reset(node);
  }
  if (!node_.IsMap()) {
    throw ConfigError(fmt::format("{}: {}: expected a map of keys, got {}", where(node_, path_),
                                  path_.empty() ? "(top level)" : path_, describe(node_)));
  }
}

std::string ConfigNode::key_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

std::string ConfigNode::where(const YAML::Node& n, const std::string& path) const {
  std::string s = sources_ ? sources_->source_of(path) : std::string("(config)");
  if (s.rfind("--set", 0) == 0) return s;
  const YAML::Mark m = n.Mark();
  if (!m.is_null()) s += ":" + std::to_string(m.line + 1);
  return s;
}

bool ConfigNode::has(const std::string& key) const {
  const YAML::Node& c = node_;
  const YAML::Node v = c[key];
  return v.IsDefined() && !v.IsNull();
}

namespace {
// Edit distance (insertions, deletions, substitutions), ignoring case.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string ConfigNode::misspelling_hint(const std::string& key, bool name_key) const {
  // A key not read so far that is one or two edits from the missing one (at most a third of its
  // length): most likely the user's spelling of it, which finish() would only report after this
  // error stopped the reading.
  std::string best;
  std::size_t best_d = std::max<std::size_t>(1, std::min<std::size_t>(2, key.size() / 3)) + 1;
  YAML::Node at;
  for (const auto& kv : node_) {
    const std::string k = kv.first.Scalar();
    if (k == key || used_.count(k)) continue;
    const std::size_t d = edit_distance(k, key);
    if (d < best_d) {
      best_d = d;
      best = k;
      at = kv.first;
    }
  }
  if (best.empty()) return "";
  const YAML::Mark m = at.Mark();
  const std::string of = name_key ? "'" + key + "'" : std::string("it");
  return m.is_null()
             ? fmt::format(" (is '{}' a misspelling of {}?)", best, of)
             : fmt::format(" (is '{}' on line {} a misspelling of {}?)", best, m.line + 1, of);
}

void ConfigNode::fail(const std::string& key, const std::string& what) const {
  std::string message = location(key) + ": " + what;
  if (what.rfind("missing", 0) == 0) {
    const std::string hint = misspelling_hint(key);
    message += hint.empty() ? absent_hint_ : hint;
  }
  throw ConfigError(message);
}

std::string ConfigNode::location(const std::string& key) const {
  const YAML::Node& c = node_;
  // A dotted key names something below a key of this map, such as a list entry ("dims.0"): its
  // own line, and the --set that wrote it rather than the file that wrote the rest of the list.
  bool present = false;
  YAML::Node at;
  if (key.find('.') == std::string::npos) {
    const YAML::Node v = c[key];
    present = v.IsDefined();
    at.reset(present ? v : node_);
  } else {
    at.reset(walk(key, present));
  }
  const std::string path = key_path(key);
  std::string s = fmt::format("{}: {}", where(at, path), path);
  if (!present && sources_) {
    // Missing from what a preset supplied: the preset's file says where the key would go; the
    // choice of the preset is the user's, in their file.
    const ConfigSources::PresetChoice* p = sources_->preset_of(path);
    if (p && sources_->source_of(path) == p->file) {
      s += fmt::format(" (not in preset '{}', chosen at {})", p->name, p->chosen_at);
    }
  }
  return s;
}

std::string ConfigNode::location(const std::string& key, std::size_t index) const {
  const YAML::Node& c = node_;
  const YAML::Node v = c[key];
  if (!v.IsDefined() || !v.IsSequence() || index >= v.size()) return location(key);
  return fmt::format("{}: {}.{}", written_at(key, index), key_path(key), index);
}

std::string ConfigNode::written_at(const std::string& key, std::size_t index) const {
  const YAML::Node& c = node_;
  const YAML::Node v = c[key];
  const std::string path = key_path(key) + "." + std::to_string(index);
  if (!v.IsDefined() || !v.IsSequence() || index >= v.size()) return where(node_, path_);
  return where(v[index], path);
}

void ConfigNode::fail_here(const std::string& what) const {
  throw ConfigError(
      fmt::format("{}: {}: {}", where(node_, path_), path_.empty() ? "(top level)" : path_, what));
}

// The node at a dotted path below `from` (map keys, list indices), or the deepest part of it
// present; `whole` tells which.
YAML::Node ConfigNode::walk(const std::string& dotted, bool& whole) const {
  YAML::Node at = node_;
  std::size_t from = 0;
  whole = false;
  while (from <= dotted.size()) {
    const std::size_t dot = std::min(dotted.find('.', from), dotted.size());
    const std::string part = dotted.substr(from, dot - from);
    const YAML::Node& c = at;
    std::uint64_t idx = 0;
    const bool index = c.IsSequence() && parse_uint(part, idx) && idx < c.size();
    if (!c.IsMap() && !index) return at;
    // A const lookup: a missing key gives an undefined node rather than adding one.
    const YAML::Node next = index ? c[idx] : c[part];
    if (!next.IsDefined() || next.IsNull()) return at;
    at.reset(next);  // operator= would assign into the tree (yaml-cpp node semantics)
    from = dot + 1;
  }
  whole = true;
  return at;
}

void ConfigNode::fail_among(const std::vector<std::string>& keys, const std::string& what) const {
  bool whole = false;
  for (const std::string& k : keys) {
    // Present, and written by a --set (a key absent below a map a --set created is not).
    const std::string source = sources_ ? sources_->source_of(key_path(k)) : std::string();
    if (source.rfind("--set", 0) == 0 && (walk(k, whole), whole)) {
      throw ConfigError(fmt::format("{}: {}: {}", source, key_path(k), what));
    }
  }
  const YAML::Node at = walk(keys.front(), whole);
  throw ConfigError(
      fmt::format("{}: {}: {}", where(at, key_path(keys.front())), key_path(keys.front()), what));
}

std::optional<YAML::Node> ConfigNode::scalar(const std::string& key) {
  used_.insert(key);
  const YAML::Node& c = node_;
  YAML::Node v = c[key];
  if (!v.IsDefined() || v.IsNull()) return std::nullopt;
  if (!v.IsScalar()) fail(key, "expected a single value, got " + describe(v));
  return v;
}

std::uint64_t ConfigNode::get_uint(const std::string& key, std::optional<std::uint64_t> def,
                                   std::uint64_t min, std::uint64_t max) {
  const std::string expect = max == std::numeric_limits<std::uint64_t>::max()
                                 ? fmt::format("an integer >= {}", min)
                                 : fmt::format("an integer in [{}, {}]", min, max);
  const std::optional<YAML::Node> sv = scalar(key);
  if (!sv) {
    if (!def) fail(key, "missing; expected " + expect);
    return defaulted(key, *def);
  }
  const YAML::Node& v = *sv;
  std::uint64_t out;
  if (!parse_uint(v.Scalar(), out) || out < min || out > max) {
    fail(key, "expected " + expect + ", got " + describe(v));
  }
  return out;
}

double ConfigNode::get_double(const std::string& key, std::optional<double> def, double min,
                              double max, bool min_exclusive) {
  const std::string expect =
      std::isinf(max) ? fmt::format("a number {} {}", min_exclusive ? ">" : ">=", fmt_num(min))
                      : fmt::format("a number in {}{}, {}]", min_exclusive ? "(" : "[",
                                    fmt_num(min), fmt_num(max));
  const std::optional<YAML::Node> sv = scalar(key);
  if (!sv) {
    if (!def) fail(key, "missing; expected " + expect);
    return defaulted(key, *def);
  }
  const YAML::Node& v = *sv;
  double out;
  if (!parse_double(v.Scalar(), out) || out > max || out < min || (min_exclusive && out == min)) {
    fail(key, "expected " + expect + ", got " + describe(v));
  }
  return out;
}

std::optional<std::uint64_t> ConfigNode::find_uint(const std::string& key, std::uint64_t min,
                                                   std::uint64_t max) {
  if (!scalar(key)) return std::nullopt;
  return get_uint(key, std::nullopt, min, max);
}

std::optional<double> ConfigNode::find_double(const std::string& key, double min, double max) {
  if (!scalar(key)) return std::nullopt;
  return get_double(key, std::nullopt, min, max);
}

bool ConfigNode::get_bool(const std::string& key, std::optional<bool> def) {
  const std::optional<YAML::Node> sv = scalar(key);
  if (!sv) {
    if (!def) fail(key, "missing; expected true or false");
    return defaulted(key, *def);
  }
  const YAML::Node& v = *sv;
  const std::string& s = v.Scalar();
  if (s == "true" || s == "True") return true;
  if (s == "false" || s == "False") return false;
  fail(key, "expected true or false, got " + describe(v));
}

std::string ConfigNode::get_string(const std::string& key, std::optional<std::string> def) {
  const std::optional<YAML::Node> sv = scalar(key);
  if (!sv) {
    if (!def) fail(key, "missing; expected a text value");
    return defaulted(key, *def);
  }
  const YAML::Node& v = *sv;
  return v.Scalar();
}

std::string ConfigNode::get_path(const std::string& key) {
  const std::string p = get_string(key, std::nullopt);
  if (p.empty()) fail(key, "expected a file path");
  const std::filesystem::path path(p);
  if (path.is_absolute() || !sources_) return p;
  // Relative to the file the key was written in, when that file has it; else to the working
  // directory (a path given with --set, or a file next to where famsim runs).
  const std::filesystem::path from(sources_->source_of(key_path(key)));
  if (from.has_parent_path()) {
    const std::filesystem::path beside = from.parent_path() / path;
    std::error_code ec;
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
  return p;
}

std::string ConfigNode::get_choice(const std::string& key, std::optional<std::string> def,
                                   const std::vector<std::string>& allowed) {
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : " | ") + a;
  const std::optional<YAML::Node> sv = scalar(key);
  if (!sv) {
    if (!def) fail(key, "missing; expected one of " + list);
    return defaulted(key, *def);
  }
  const YAML::Node& v = *sv;
  if (std::find(allowed.begin(), allowed.end(), v.Scalar()) == allowed.end()) {
    fail(key, "expected one of " + list + ", got " + describe(v));
  }
  return v.Scalar();
}

std::uint64_t ConfigNode::get_bytes(const std::string& key, std::optional<std::uint64_t> def,
                                    std::uint64_t min, std::uint64_t max) {
  const std::string expect =
      max == std::numeric_limits<std::uint64_t>::max()
          ? fmt::format("a byte count >= {} (integer or with a unit: 64KiB, 8GiB)", min)
          : fmt::format("a byte count in [{}, {}] (integer or with a unit: 64KiB, 8GiB)", min, max);
  const std::optional<YAML::Node> sv = scalar(key);
  if (!sv) {
    if (!def) fail(key, "missing; expected " + expect);
    return defaulted(key, *def);
  }
  const YAML::Node& v = *sv;
  const auto out = parse_bytes(v.Scalar());
  if (!out || *out < min || *out > max) fail(key, "expected " + expect + ", got " + describe(v));
  return *out;
}

std::vector<std::uint64_t> ConfigNode::get_uint_list(const std::string& key, std::uint64_t min,
                                                     std::uint64_t max) {
  used_.insert(key);
  const YAML::Node& c = node_;
  YAML::Node v = c[key];
  std::vector<std::uint64_t> out;
  if (!v.IsDefined() || v.IsNull()) return out;
  const std::string expect = fmt::format("a list of integers in [{}, {}]", min, max);
  if (!v.IsSequence()) fail(key, "expected " + expect + ", got " + describe(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const YAML::Node e = v[i];
    std::uint64_t x;
    if (!e.IsScalar() || !parse_uint(e.Scalar(), x) || x < min || x > max) {
      // Named as the entry, which a --set may have written alone (dims.0=0).
      fail(fmt::format("{}.{}", key, i),
           fmt::format("expected an integer in [{}, {}], got {}", min, max, describe(e)));
    }
    out.push_back(x);
  }
  return out;
}

std::vector<std::vector<std::uint64_t>> ConfigNode::get_uint_tuples(const std::string& key,
                                                                    std::size_t arity,
                                                                    std::uint64_t min,
                                                                    std::uint64_t max) {
  used_.insert(key);
  const YAML::Node& c = node_;
  YAML::Node v = c[key];
  std::vector<std::vector<std::uint64_t>> out;
  if (!v.IsDefined() || v.IsNull()) return out;
  const std::string expect =
      fmt::format("a list of [{}] entries, each a list of {} integers in [{}, {}]",
                  arity == 2 ? "x, y" : std::to_string(arity), arity, min, max);
  if (!v.IsSequence()) fail(key, "expected " + expect + ", got " + describe(v));
  // Errors name the entry, or the value in it, that is wrong: a --set may have written it alone.
  for (std::size_t i = 0; i < v.size(); ++i) {
    const YAML::Node e = v[i];
    const std::string entry = fmt::format("{}.{}", key, i);
    if (!e.IsSequence())
      fail(entry, fmt::format("expected {}, got entry {}: {}", expect, i, describe(e)));
    if (e.size() != arity) {
      fail(entry, fmt::format("expected {}, got entry {} with {} values", expect, i, e.size()));
    }
    std::vector<std::uint64_t> t;
    for (std::size_t j = 0; j < e.size(); ++j) {
      const YAML::Node x = e[j];
      std::uint64_t u;
      if (!x.IsScalar() || !parse_uint(x.Scalar(), u) || u < min || u > max) {
        fail(fmt::format("{}.{}", entry, j),
             fmt::format("expected {}, got entry {} with a value {}", expect, i, describe(x)));
      }
      t.push_back(u);
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> ConfigNode::get_string_list(const std::string& key) {
  used_.insert(key);
  const YAML::Node& c = node_;
  YAML::Node v = c[key];
  std::vector<std::string> out;
  if (!v.IsDefined() || v.IsNull()) return out;
  if (v.IsScalar()) {
    out.push_back(v.Scalar());
    return out;
  }
  if (!v.IsSequence()) fail(key, "expected a list of text values, got " + describe(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const YAML::Node e = v[i];
    if (!e.IsScalar()) {
      fail(fmt::format("{}.{}", key, i),
           "expected a list of text values, got an entry " + describe(e));
    }
    out.push_back(e.Scalar());
  }
  return out;
}

bool ConfigNode::is_list(const std::string& key) const {
  const YAML::Node& c = node_;
  return c[key].IsDefined() && c[key].IsSequence();
}

bool ConfigNode::is_map(const std::string& key) const {
  const YAML::Node& c = node_;
  return c[key].IsDefined() && c[key].IsMap();
}

ConfigNode ConfigNode::child(const std::string& key, bool required) {
  used_.insert(key);
  const YAML::Node& c = node_;
  YAML::Node v = c[key];
  if ((!v.IsDefined() || v.IsNull()) && required) fail(key, "missing; expected a map of keys");
  if (v.IsDefined() && !v.IsNull() && !v.IsMap()) {
    fail(key, "expected a map of keys, got " + describe(v));
  }
  ConfigNode out(v, key_path(key), sources_);
  if (!v.IsDefined() || v.IsNull()) {
    out.absent_hint_ = misspelling_hint(key, true);
    if (out.absent_hint_.empty()) out.absent_hint_ = absent_hint_;
  }
  return out;
}

std::vector<ConfigNode> ConfigNode::list(const std::string& key, bool required) {
  used_.insert(key);
  const YAML::Node& c = node_;
  YAML::Node v = c[key];
  std::vector<ConfigNode> out;
  if (!v.IsDefined() || v.IsNull()) {
    if (required) fail(key, "missing; expected a list");
    return out;
  }
  if (!v.IsSequence()) fail(key, "expected a list, got " + describe(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = key_path(key) + "." + std::to_string(i);
    if (!v[i].IsMap()) {
      throw ConfigError(
          fmt::format("{}: {}: expected a map of keys, got {}", where(v[i], p), p, describe(v[i])));
    }
    out.emplace_back(v[i], p, sources_);
  }
  return out;
}

std::vector<ConfigAssumption> ConfigNode::assumptions(const std::string& key) {
  used_.insert(key);
  std::vector<ConfigAssumption> out;
  const YAML::Node& c = node_;
  const YAML::Node notes = c[key];
  if (!notes.IsDefined() || notes.IsNull()) return out;
  const std::string here = path_.empty() ? std::string("the top level") : path_;
  // Depth-first over the notes' map; `rel` is the key path below this node a note stands for.
  auto visit = [&](auto&& self, const YAML::Node& n, const std::string& rel) -> void {
    const std::string note_path = key_path(key + "." + rel);
    if (n.IsMap()) {
      for (const auto& kv : n) {
        const std::string k = kv.first.Scalar();
        self(self, kv.second, rel.empty() ? k : rel + "." + k);
      }
      return;
    }
    if (rel.empty() || !n.IsScalar() || n.Scalar().empty()) {
      throw ConfigError(
          fmt::format("{}: {}: expected a map of notes mirroring the keys of {} "
                      "(each a text saying why that value is an assumption), got {}",
                      where(n, note_path), note_path, here, describe(n)));
    }
    bool whole = false;
    const YAML::Node value = walk(rel, whole);
    if (!whole || !value.IsScalar()) {
      throw ConfigError(
          fmt::format("{}: {}: marks {} as an assumption, but {} gives no such "
                      "value; expected the key path of a value given in {}",
                      where(n, note_path), note_path, key_path(rel), here, here));
    }
    out.push_back({rel, yaml_to_json(value), n.Scalar(),
                   sources_ ? sources_->source_of(key_path(rel)) : std::string(),
                   sources_ ? sources_->source_of(note_path) : std::string()});
  };
  if (!notes.IsMap()) {
    throw ConfigError(
        fmt::format("{}: {}: expected a map of notes mirroring the keys of {}, got {}",
                    where(notes, key_path(key)), key_path(key), here, describe(notes)));
  }
  visit(visit, notes, "");
  return out;
}

void ConfigNode::finish() const { check_keys(used_); }

void ConfigNode::check_known(const std::vector<std::string>& known) const {
  check_keys(std::set<std::string>(known.begin(), known.end()));
}

void ConfigNode::check_keys(const std::set<std::string>& known) const {
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (!kv.first.IsScalar()) {
      // A complex key ('? [a, b]'): its Scalar() is empty, which read as "unknown key ''".
      const std::string reason = fmt::format("a key that is {}, not a name; expected one of: {}",
                                             describe(kv.first), join(known));
      throw ConfigError(
          where(kv.first, path_) + ": " + (path_.empty() ? "(top level)" : path_) + ": " + reason,
          path_, reason);
    }
    if (known.count(key) == 0) {
      std::string reason =
          fmt::format("unknown key '{}'; expected one of: {}", key_path(key), join(known));
      // The known key one or two edits from it (at most a third of its length), and the map's
      // other unknown keys, each with its own, so that a file with several (a model's
      // config.json names pasted in) is mended in one pass.
      const auto nearest = [&known](const std::string& unknown) {
        std::string best;
        std::size_t best_d =
            std::max<std::size_t>(1, std::min<std::size_t>(2, unknown.size() / 3)) + 1;
        for (const std::string& k : known) {
          const std::size_t d = edit_distance(k, unknown);
          if (d < best_d) {
            best_d = d;
            best = k;
          }
        }
        return best;
      };
      const std::string best = nearest(key);
      if (!best.empty()) reason += fmt::format(" (did you mean '{}'?)", best);
      std::vector<std::string> others;
      for (const auto& other : node_) {
        const std::string k = other.first.Scalar();
        if (k == key || known.count(k) || !other.first.IsScalar()) continue;
        const YAML::Mark m = other.first.Mark();
        const bool from_set = sources_ && sources_->source_of(key_path(k)).rfind("--set", 0) == 0;
        const std::string near = nearest(k);
        std::vector<std::string> notes;
        if (!m.is_null() && !from_set) notes.push_back(fmt::format("line {}", m.line + 1));
        if (!near.empty()) notes.push_back(fmt::format("did you mean '{}'?", near));
        others.push_back(notes.empty() ? fmt::format("'{}'", k)
                                       : fmt::format("'{}' ({})", k, fmt::join(notes, ", ")));
      }
      if (!others.empty()) {
        reason += fmt::format("; also unknown here: {}", fmt::join(others, ", "));
      }
      throw ConfigError(where(kv.first, key_path(key)) + ": " + reason, key_path(key), reason);
    }
  }
}

}  // namespace famsim
