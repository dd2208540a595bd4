// Judging one executed case: the kernel's status words, the source left unchanged, and every byte of the global
// destination and of each window dump (guard bands included) against the model's expectation, then against
// each named alternative (a full match there is a spec_divergence, not a pass and not a fail).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "judge.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace {

struct Diff {
  size_t count = 0;            // differing bytes
  std::vector<std::string> first;  // descriptions of the first differing elements
};

std::string elem_hex(const std::vector<uint8_t>& v, size_t at, unsigned n) {
  std::string s;
  for (unsigned k = n; k-- > 0;) {  // little endian: print most significant byte first
    size_t i = at + k;
    char b[4];
    std::snprintf(b, sizeof b, "%02x", i < v.size() ? v[i] : 0);
    s += b;
  }
  return "0x" + s;
}

void diff_region(const Setup& s, bool smem, uint32_t ranks, uint32_t window, const std::vector<uint8_t>& exp,
                 const std::vector<uint8_t>& act, Diff& d, size_t max_items) {
  unsigned eb = std::max(1u, s.elem_bytes);
  size_t last_elem = size_t(-1);
  const std::vector<uint8_t>* open = smem && !s.smem_open.empty() ? &s.smem_open : nullptr;
  for (size_t i = 0; i < exp.size() && i < act.size(); ++i) {
    if (exp[i] == act[i] || (open && i < open->size() && (*open)[i])) continue;  // equal, or indeterminate
    ++d.count;
    size_t elem = i / eb * eb;
    if (elem == last_elem || d.first.size() >= max_items) continue;
    last_elem = elem;
    uint32_t rank = smem && window ? uint32_t(elem / window) : 0;
    size_t off = smem && window ? elem % window : elem;
    std::string where = s.where ? s.where(smem, rank, off) : "";
    std::ostringstream m;
    if (smem) m << "window rank " << rank << " +" << hex(off);
    else m << "global dst +" << hex(off);
    if (!where.empty()) m << " (" << where << ")";
    m << ": expected " << elem_hex(exp, elem, eb) << ", actual " << elem_hex(act, elem, eb);
    d.first.push_back(m.str());
  }
  (void)ranks;
}

Diff compare(const Setup& s, const Image& exp, const Image& act, size_t max_items) {
  Diff d;
  diff_region(s, false, s.ranks, s.window, exp.gdst, act.gdst, d, max_items);
  diff_region(s, true, s.ranks, s.window, exp.smem, act.smem, d, max_items);
  return d;
}

// Where bytes changed from the initial image (random, so a written byte keeps its old value 1 time in 256):
// "+lo..+hi (n changed)" per region, or "" when none changed. Per window rank for shared memory.
std::string changed_spans(const std::vector<uint8_t>& before, const std::vector<uint8_t>& after, uint32_t window,
                          bool smem) {
  std::ostringstream m;
  const size_t n = std::min(before.size(), after.size());
  const size_t part = smem && window ? window : std::max<size_t>(n, 1);
  for (size_t base = 0; base < n; base += part) {
    size_t lo = size_t(-1), hi = 0, count = 0;
    for (size_t i = base; i < std::min(n, base + part); ++i)
      if (before[i] != after[i]) lo = std::min(lo, i - base), hi = i - base + 1, ++count;
    if (!count) continue;
    m << (m.tellp() > 0 ? ", " : "") << (smem ? "window rank " + std::to_string(base / part) : std::string("global dst"))
      << " +" << hex(lo) << "..+" << hex(hi) << " (" << count << " changed)";
  }
  return m.str();
}

// The bytes an image changed against the case's initial windows and global destination, or "nothing".
std::string changes(const Setup& s, const Image& img) {
  const std::string smem = changed_spans(s.smem_init, img.smem, s.window, true);
  const std::string gdst = changed_spans(s.gdst, img.gdst, 0, false);
  if (smem.empty() || gdst.empty()) return smem.empty() && gdst.empty() ? "nothing" : smem + gdst;
  return smem + ", " + gdst;
}

// What the device wrote against what the model writes, region by region: where a case's bytes went when they
// are not where the model puts them (a layout, a stride, a write past the box).
std::string written(const Setup& s, const Image& act) {
  return "; the device changed " + changes(s, act) + "; the model changes " + changes(s, s.expected);
}

}  // namespace

// Whether the device's image is a partial application of an alternative's: every byte the device changed has
// the alternative's value, and every byte the alternative leaves alone is unchanged. What a phase that completes
// early (or never) leaves when the device credits other bytes than the kernel expects: the rest land late.
bool partial_match(const Setup& s, const Image& alt, const Image& act) {
  auto region = [](const std::vector<uint8_t>& init, const std::vector<uint8_t>& a, const std::vector<uint8_t>& d,
                   const std::vector<uint8_t>& open) {
    if (a.size() != d.size() || init.size() != d.size()) return false;
    for (size_t i = 0; i < d.size(); ++i) {
      if (i < open.size() && open[i]) continue;  // indeterminate (Setup::smem_open)
      if (d[i] != init[i] && d[i] != a[i]) return false;  // a byte the alternative does not write this way
      if (a[i] == init[i] && d[i] != init[i]) return false;
    }
    return true;
  };
  return region(s.gdst, alt.gdst, act.gdst, {}) && region(s.smem_init, alt.smem, act.smem, s.smem_open);
}

// The measured profile (every alternative measured on a device at once) reduced to the alternatives a match needs:
// each whose removal keeps `matches` true is dropped, in catalog order. False when the whole profile does not match.
template <class Matches>
bool measured_match(const Matches& matches, ref::PolicySet& profile) {
  profile = ref::measured_profile();
  if (!matches(profile)) return false;
  const ref::PolicySet base;
  for (size_t id = 0; id < ref::kPolicyCount; ++id) {
    auto pid = static_cast<ref::PolicyId>(id);
    if (profile.index(pid) == base.index(pid)) continue;
    ref::PolicySet fewer = profile;
    fewer.set_index(pid, base.index(pid));
    if (matches(fewer)) profile = fewer;
  }
  return true;
}

// A named alternative under which the device credits the mbarrier other bytes than the kernel expects, and whose
// bytes the device's image partly shows: the phase then completes early or never, by that alternative. One
// alternative at a time first; then the measured profile (every alternative measured on a device at once), reduced
// to the alternatives the match needs, as the byte comparison in judge does: an interleaved load whose chunk rows
// leave the tensor with a NaN fill takes interleave_tile_box=chunk_rows and oob_nan_pattern=repeat_7ff7 together.
bool judge_tx_divergence(const Setup& s, const Image& actual, const std::string& what, CaseResult& r) {
  if (!s.tx || !s.model || s.w[W_TX_BYTES] == 0) return false;
  auto shows = [&](const ref::PolicySet& ps, uint64_t& tx) {
    try {
      tx = s.tx(ps);
      return tx != s.w[W_TX_BYTES] && partial_match(s, s.model(ps), actual);
    } catch (const std::exception&) {
      return false;
    }
  };
  auto name_it = [&](const std::string& name, uint64_t tx) {
    r.cls = cls::spec_divergence;
    r.message = "device matches the alternative " + name + ", not the model's default reading: it credits " +
                std::to_string(tx) + " bytes where the kernel expects " + std::to_string(s.w[W_TX_BYTES]) + ", so " +
                what + "; every byte it wrote is the alternative's" + written(s, actual);
    r.details["matched_policy"] = name;
    r.details["alternative_tx_bytes"] = Json(double(tx));
    return true;
  };
  uint64_t tx = 0;
  for (auto& [name, ps] : ref::single_deviations(ref::PolicySet{}))
    if (shows(ps, tx)) return name_it(name, tx);
  ref::PolicySet profile;
  if (!measured_match([&](const ref::PolicySet& ps) { return shows(ps, tx); }, profile)) return false;
  shows(profile, tx);  // the reduced profile's credit
  return name_it(profile.describe(), tx);
}

std::string image_difference(const Setup& s, const Image& a, const Image& b) {
  if (a.gdst == b.gdst && a.smem == b.smem) return "";
  Diff d = compare(s, a, b, 1);
  return std::to_string(d.count) + " byte(s) differ, the first: " + (d.first.empty() ? std::string("?") : d.first[0]);
}

void judge(const RunCase& c, const Setup& s, const std::vector<uint8_t>& gsrc_after, const Image& actual,
           const std::vector<uint32_t>& status, CaseResult& r) {
  (void)c;
  // 1. Every CTA reached its end, every waiting CTA saw its mbarrier phase complete.
  for (uint32_t k = 0; k < s.ranks; ++k) {
    const uint32_t* st = &status[size_t(k) * kStatusWords];
    r.details["status"].push(Json(Json::Array{Json(st[0]), Json(st[1]), Json(st[2]), Json(st[3])}));
  }
  for (uint32_t k = 0; k < s.ranks; ++k) {
    const uint32_t* st = &status[size_t(k) * kStatusWords];
    if (st[1] == 2) {
      if (judge_tx_divergence(s, actual, "the phase never completes", r)) return;
      r.cls = cls::timeout;
      r.message = "CTA rank " + std::to_string(k) + ": mbarrier.try_wait gave up after " + std::to_string(st[3]) +
                  " iterations (wait_limit " + std::to_string(s.w[W_WAIT_LIMIT]) + "): the phase never completed" +
                  written(s, actual);
      return;
    }
  }
  for (uint32_t k = 0; k < s.ranks; ++k) {
    const uint32_t* st = &status[size_t(k) * kStatusWords];
    if (st[0] != 1) {
      r.cls = cls::fail;
      r.message = "CTA rank " + std::to_string(k) + " did not reach the end of the kernel (status[0]=" +
                  std::to_string(st[0]) + ")";
      return;
    }
    if ((s.waiters >> k & 1) && st[1] != 1) {
      r.cls = cls::fail;
      r.message = "CTA rank " + std::to_string(k) + " waits on its mbarrier but status[1]=" + std::to_string(st[1]) +
                  " (1 = phase completed)";
      return;
    }
  }
  // 2. Completion cases check themselves on the device; each bit is one check of the case.
  if (s.self_check) {
    // The issuing CTA reports the checks (ARCHITECTURE section 4, status word 2).
    uint32_t got = status[size_t(s.w[W_ISSUER]) * kStatusWords + 2];
    if (got != s.expect_bits) {
      r.cls = cls::fail;
      std::ostringstream m;
      m << "completion checks: expected bits " << hex(s.expect_bits) << ", kernel reported " << hex(got)
        << " (missing " << hex(s.expect_bits & ~got) << ", unexpected " << hex(got & ~s.expect_bits) << ")";
      // Each check that failed by its name (the setup's check_bits, "bit N: ..."), then the whole list.
      if (auto* names = s.info.get("check_bits")) {
        for (const Json& n : names->arr()) {
          if (!n.is_string()) continue;
          const std::string& t = n.str();
          unsigned long bit = 0;
          if (t.rfind("bit ", 0) != 0 || (bit = std::strtoul(t.c_str() + 4, nullptr, 10)) >= 32) continue;
          if ((s.expect_bits & ~got) >> bit & 1) m << "; failed " << t;
        }
        m << "; bits: " << names->dump();
      }
      r.message = m.str();
      return;
    }
  }
  // 3. The source is unchanged.
  if (gsrc_after != s.gsrc) {
    size_t i = 0;
    while (i < s.gsrc.size() && gsrc_after[i] == s.gsrc[i]) ++i;
    r.cls = cls::fail;
    r.message = "the global source was modified: first at buffer +" + hex(i) + " (data starts at +" +
                hex(s.gsrc_off) + "): was " + hex(s.gsrc[i], 2) + ", now " + hex(gsrc_after[i], 2);
    return;
  }
  // 4. Destinations, guard bands and windows, byte for byte.
  Diff d = compare(s, s.expected, actual, 8);
  if (s.open_bytes) r.details["indeterminate_bytes"] = s.open_bytes(actual);
  if (d.count == 0) {
    r.cls = cls::pass;
    return;
  }
  // Recompute under each alternative of each policy (one deviation at a time); an alternative that changes
  // nothing for this case's inputs is not involved and cannot explain the difference.
  std::vector<std::string> involved;
  std::vector<std::pair<std::string, ref::PolicySet>> inv_sets;
  auto diverges = [&](const std::string& name, const ref::PolicySet& ps) {
    Image alt;
    try {
      alt = s.model(ps);
    } catch (const std::exception&) {
      return false;  // the model refuses this alternative for these inputs
    }
    if (compare(s, alt, actual, 0).count != 0) return false;
    r.cls = cls::spec_divergence;
    std::ostringstream m;
    m << "device matches the alternative " << name << ", not the model's default reading; " << d.count
      << " byte(s) differ from the default, first: " << d.first.front();
    r.message = m.str();
    r.details["matched_policy"] = name;
    return true;
  };
  if (s.model) {
    const ref::PolicySet base;
    for (auto& [name, ps] : ref::single_deviations(base)) {
      Image alt;
      try {
        alt = s.model(ps);
      } catch (const std::exception&) {
        continue;
      }
      if (alt.gdst == s.expected.gdst && alt.smem == s.expected.smem) continue;  // not involved here
      involved.push_back(name);
      inv_sets.emplace_back(name, ps);
      if (diverges(name, ps)) return;
    }
    // Two policies at once (e.g. a NaN rule and a signed-zero rule of the same min/max): first two involved
    // ones, then an involved one with any other. The second may change nothing alone with these inputs (a
    // reduction whose old values win every comparison hides a layout alternative) and still be half of the
    // device's behaviour: tensor_store_oob=granule16_written with swizzle_narrow_box=pad_to_span.
    auto combine = [&](const ref::PolicySet& a, const ref::PolicySet& b, ref::PolicySet& both) {
      both = a;
      for (size_t id = 0; id < ref::kPolicyCount; ++id) {
        auto pid = static_cast<ref::PolicyId>(id);
        size_t bj = b.index(pid);
        if (bj == base.index(pid)) continue;
        if (both.index(pid) != base.index(pid)) return false;  // two alternatives of one policy
        both.set_index(pid, bj);
      }
      return true;
    };
    ref::PolicySet both;
    for (size_t i = 0; i < inv_sets.size(); ++i)
      for (size_t j = i + 1; j < inv_sets.size(); ++j)
        if (combine(inv_sets[i].second, inv_sets[j].second, both) &&
            diverges(inv_sets[i].first + "," + inv_sets[j].first, both))
          return;
    // The measured profile (every alternative measured on a device at once), reduced to the alternatives the match
    // needs: a case that takes three of them together (a tf32 load of a narrow swizzled box with a NaN fill).
    {
      auto matches = [&](const ref::PolicySet& ps) {
        try {
          return compare(s, s.model(ps), actual, 0).count == 0;
        } catch (const std::exception&) {
          return false;
        }
      };
      ref::PolicySet profile;
      if (measured_match(matches, profile) && diverges(profile.describe(), profile)) return;
    }
    // An involved alternative with a measured one of another policy (a store alternative whose bytes a measured
    // layout alternative moves): the measured ones only, so that a failing case costs tens of model runs, not
    // thousands (the exploration's rate).
    const std::vector<std::pair<std::string, ref::PolicySet>> measured = ref::measured_deviations(base);
    for (auto& [iname, iset] : inv_sets)
      for (auto& [name, ps] : measured) {
        if (std::find(involved.begin(), involved.end(), name) != involved.end()) continue;
        if (combine(iset, ps, both) && diverges(iname + "," + name, both)) return;
      }
    // With no alternative involved alone, two that only act together are found through the measured profile above
    // (every pair of the catalog would be thousands of model runs per failing case: the exploration's rate).
  }
  if (judge_tx_divergence(s, actual, "the phase completes before all of them land", r)) return;
  r.cls = cls::fail;
  std::ostringstream m;
  m << d.count << " byte(s) differ from the model";
  if (!involved.empty()) {
    m << " (and from every alternative involved:";
    for (auto& a : involved) m << " " << a;
    m << ")";
  }
  m << "; first: ";
  for (size_t i = 0; i < d.first.size(); ++i) m << (i ? "; " : "") << d.first[i];
  const std::string w = written(s, actual);
  r.details["written"] = w.substr(2);
  r.message = m.str() + w;
  Json mm = Json::array();
  for (auto& f : d.first) mm.push(f);
  r.details["mismatches"] = mm;
}

}  // namespace ptxcts::run
