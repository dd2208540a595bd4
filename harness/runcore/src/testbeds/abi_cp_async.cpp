// cp.async (non-bulk) and its completion mechanisms (commit/wait_group, wait_all, cp.async.mbarrier.arrive).
// Chapter: "cp.async ... cp-size ... src-size ... ignore-src"; expected bytes from ref::cp_async.
#include <sstream>

#include "abi.hpp"
#include "ptxcts/ref/copy.hpp"
#include "self_check.hpp"

namespace ptxcts::run {

namespace {

constexpr uint32_t kWindow = 1024;
constexpr size_t kGlobal = 4096;

// v1.cp_async.wait_group: thread 0 issues `cp.async [window+dst_off], [src], cp-size{, src-size}{, ignore-src}`,
// commits, waits for the group; the window is dumped.
std::vector<Variant> cp_async_variants(const Form& f, const PlanOptions& o) {
  std::vector<Variant> v;
  unsigned cp = unsigned(run_int(f, field::cp_size, 16));
  std::string src_op = run_str(f, field::src_op, "none");
  bool has_size = src_op.find("src_size") != std::string::npos;
  bool has_ignore = src_op.find("ignore_src") != std::string::npos;
  // src-size: 0, 1, cp-size - 1 and cp-size (the chapter: src-size <= cp-size; the rest zero-filled).
  std::vector<unsigned> sizes = {cp};
  if (has_size) {
    sizes = {0, 1, cp - 1, cp};
    if (cp >= 8) sizes.insert(sizes.begin() + 2, cp / 2 + 1);
  }
  std::vector<int> ignores = {0};
  if (has_ignore) ignores = {0, 1};
  // Alignment: exactly cp-size (an address that is not 2*cp-size aligned) and 128 B.
  std::vector<unsigned> aligns = {cp, 128};
  if (o.level >= 2) aligns.push_back(1024);
  for (unsigned ss : sizes)
    for (int ig : ignores)
      for (unsigned al : aligns) {
        std::ostringstream n;
        if (has_size) n << "src_size_" << ss << ".";
        if (has_ignore) n << "ignore_src_" << ig << ".";
        n << "align_" << al;
        Json p = Json::object();
        p["cp_size"] = cp;
        p["src_size"] = ss;
        p["ignore_src"] = ig;
        p["align"] = al;
        v.emplace_back(n.str(), p);
      }
  return v;
}

// An offset that is a multiple of `al` but not of 2*al (exact alignment), from a 1024-aligned base + `base`.
size_t at_alignment(size_t base, unsigned al) { return al >= 1024 ? base : base + al; }

void cp_async_build(const RunCase& c, Rng& rng, const PlanOptions&, Setup& s) {
  const Form& f = *c.form;
  unsigned cp = unsigned(c.params.get_int("cp_size"));
  unsigned ss = unsigned(c.params.get_int("src_size"));
  bool ig = c.params.get_int("ignore_src") != 0;
  unsigned al = unsigned(c.params.get_int("align"));
  std::string src_op = run_str(f, field::src_op, "none");
  s.window = kWindow;
  s.gsrc = random_bytes(rng, kGlobal);
  s.gsrc_off = at_alignment(1024, al);
  s.smem_init = random_bytes(rng, kWindow);
  size_t dst_off = at_alignment(256, al);
  make_distinct(s.smem_init.data() + dst_off, s.gsrc.data() + s.gsrc_off, cp);
  // A zero fill must be visible: the destination's initial bytes are never zero.
  for (unsigned i = 0; i < cp; ++i)
    if (s.smem_init[dst_off + i] == 0) s.smem_init[dst_off + i] = 0x5A;
  s.w[W_DST_OFF] = dst_off;
  s.w[W_SIZE] = ss;
  s.w[W_IGNORE_SRC] = ig ? 1 : 0;
  ref::CpAsyncArgs a;
  a.cp_size = cp;
  if (src_op.find("src_size") != std::string::npos) a.src_size = ss;
  a.ignore_src = ig;
  a.cg = run_str(f, field::cop) == "cg";
  s.expected.smem = s.smem_init;
  ref::cp_async(ref::ByteSpan{s.expected.smem.data() + dst_off, cp},
                ref::ConstByteSpan(s.gsrc.data() + s.gsrc_off, cp), a);
  s.elem_bytes = 1;
  s.where = [dst_off, cp](bool smem, uint32_t, size_t off) -> std::string {
    if (!smem) return "";
    if (off >= dst_off && off < dst_off + cp) return "destination byte " + std::to_string(off - dst_off);
    return "guard band, outside the cp-size bytes at +" + hex(dst_off);
  };
  s.info["dst_off"] = (unsigned long long)dst_off;
  s.info["src_off"] = (unsigned long long)s.gsrc_off;
}

// v1.self_check.cp_async: chunks of run.chunk_bytes (several KB) from src into window+dst_off, 16 bytes per
// cp.async; the kernel checks on the device which chunks are complete after the wait under test (status word 2)
// and waits for all before the dump. The chunk size travels in args.size: less than run.chunk_bytes where the
// device's shared memory cannot hold every chunk.
void self_check_build(const RunCase& c, Rng& rng, const PlanOptions& o, Setup& s) {
  const Form& f = *c.form;
  unsigned chunks = unsigned(run_int(f, field::chunks, 1));
  unsigned cb = self_check_chunk_bytes(uint64_t(run_int(f, field::chunk_bytes, 16)), chunks, o.max_smem);
  const size_t bytes = size_t(chunks) * cb;
  size_t dst_off = 256;
  s.window = uint32_t(std::max<size_t>(kWindow, dst_off + bytes + 256));
  s.gsrc_off = 1024;
  s.gsrc = random_bytes(rng, std::max<size_t>(kGlobal, s.gsrc_off + bytes + 1024));
  s.smem_init = random_bytes(rng, s.window);
  // Every destination byte differs from its source byte: a check passes only if the copy landed.
  make_distinct(s.smem_init.data() + dst_off, s.gsrc.data() + s.gsrc_off, bytes);
  s.w[W_DST_OFF] = dst_off;
  s.w[W_SIZE] = cb;
  s.self_check = true;
  s.expect_bits = uint32_t(run_int(f, field::expect_bits, 0));
  if (run_str(f, field::completion) == "mbarrier") s.waiters = 1;  // thread 0 of rank 0 polls its mbarrier
  s.expected.smem = s.smem_init;
  // Chunk i sits at dst_off + i*cb; the chunks after the last checked one copy 16 bytes only (the template's rule).
  const unsigned checked = unsigned(run_int(f, field::checked_after_wait, 0));
  for (unsigned i = 0; i < chunks; ++i) {
    ref::CpAsyncArgs a;
    a.cp_size = 16;
    a.cg = true;
    for (unsigned at = 0; at < (i < checked ? cb : 16u); at += 16)
      ref::cp_async(ref::ByteSpan{s.expected.smem.data() + dst_off + i * cb + at, 16},
                    ref::ConstByteSpan(s.gsrc.data() + s.gsrc_off + i * cb + at, 16), a);
  }
  Json bits = Json::array();
  for (unsigned i = 0; i < checked; ++i)
    bits.push("bit " + std::to_string(i) + ": chunk " + std::to_string(i) + " complete after the wait");
  if (run_str(f, field::completion) == "mbarrier") {
    // cp.async.mbarrier.arrive{.noinc}: the kernel's second phase (templates/cp_async_groups.ptx.j2, flow arrive).
    bits.push("bit " + std::to_string(checked) + ": phase 1 still pending after its cp.async landed and the "
              "arrive-on happened, before thread 0's last mbarrier.arrive (violated: the asynchronous arrive-on "
              "completed the phase, i.e. the pending count was not incremented as without .noinc, or the init "
              "count did not cover it)");
    bits.push("bit " + std::to_string(checked + 1) + ": phase 1 complete after thread 0's last mbarrier.arrive");
  }
  s.info["check_bits"] = bits;
  s.info["chunk_bytes"] = (unsigned long long)cb;
  s.where = [dst_off, chunks, cb](bool smem, uint32_t, size_t off) -> std::string {
    if (!smem) return "";
    if (off >= dst_off && off < dst_off + size_t(chunks) * cb)
      return "chunk " + std::to_string((off - dst_off) / cb) + " byte " + std::to_string((off - dst_off) % cb);
    return "guard band";
  };
}

}  // namespace

void register_cp_async(AbiRegistry& r) {
  set_plan(r, "v1.cp_async.wait_group", cp_async_variants, cp_async_build);
  set_plan(r, "v1.self_check.cp_async", self_check_variants, self_check_build);
}

}  // namespace ptxcts::run
