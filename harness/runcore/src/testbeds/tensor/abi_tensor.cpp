// Tensor families: cp.async.bulk.tensor loads (tile, im2col; shared::cta, peer shared::cluster, multicast),
// stores (tile, im2col_no_offs), cp.reduce.async.bulk.tensor, cp.async.bulk.prefetch.tensor: the recipes a form
// gets (maps and coordinates from tensor_maps.hpp) and the case each recipe builds. Tensor maps are encoded by the
// worker through the driver entry points; every expected byte comes from ref::tensor_load / tensor_store /
// tensor_reduce / tensor_tx_bytes. Device behaviour the chapter does not state: device_quirks.hpp.
#include <sstream>

#include "abi.hpp"
#include "judge.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "device_quirks.hpp"
#include "tensor_form.hpp"
#include "tensor_mode_gate.hpp"
#include "tensor_map_json.hpp"
#include "tensor_maps.hpp"
#include "values.hpp"

namespace ptxcts::run {

namespace {

using namespace tmaps;
constexpr size_t kGuard = 256;
constexpr uint32_t kBoxOff = 1024;  // box start in the window: 1024-aligned, so every swizzle mode applies

// A variant: the tensor map and the access, fully determined by the recipe (so the ID describes it).
struct Recipe {
  std::string name;
  ref::TensorMapParams map;
  ref::TensorAccess acc;
  uint32_t smem_off = kBoxOff;
  uint32_t cluster = 1, mask = 0, peer = 0;
  std::string redtype;  // reduce: the element type spelled as in PTX (from the map's dtype)
  uint32_t gbase = 0;   // the tensor's start past the 1024-aligned buffer's guard band (global base alignment)
};

std::vector<Recipe> recipes(const Form& f, const PlanOptions& o) {
  TensorForm t = tform(f);
  std::vector<Recipe> out;
  const bool im2col = im2col_mode(t.mode);
  if (!mode_planned(t)) return out;
  std::vector<std::pair<ref::TensorMapParams, std::array<uint16_t, 3>>> maps;
  if (im2col) {
    maps = im2col_maps(t.rank, t.mode == ref::TensorMode::im2col);
    if (t.store || t.reduce)  // the chapter: the bounding box's lower corner must be non-negative for stores
      for (auto& m : maps)
        for (unsigned i = 0; i + 2 < t.rank; ++i) { m.first.lower_corner[i] = 0; m.first.upper_corner[i] = 0; }
  } else {
    for (auto& p : tile_maps(t.rank, t.store || t.reduce, o.level)) maps.push_back({p, {0, 0, 0}});
  }
  // A map's recipe-name segment past map_name (padded_candidates' padded rows).
  std::vector<std::string> segments;
  if (t.reduce) {
    // One map per element type the redOp allows, replacing the load maps' types: the first legal of
    // reduce_map_candidates, so that a type whose dense map the driver refuses still runs.
    std::vector<std::pair<ref::TensorMapParams, std::array<uint16_t, 3>>> rm;
    for (auto& ty : t.types) {
      auto dt = dtype_for(ty);
      if (!dt) continue;
      if (auto m = reduce_map(*dt, t.rank, im2col)) {
        rm.push_back({m->map, {0, 0, 0}});
        segments.push_back(m->name);
      }
    }
    maps = rm;
  } else {
    // A map whose dense rows the driver refuses (global_stride_multiple16: UINT8 rows, the swizzle maps' rows of
    // 77 / 45 / 29 .u16 elements) runs with its rows padded, the first legal of padded_candidates: otherwise every
    // swizzle 128B tile copy of rank 2 and up would be dropped. A map no candidate makes legal stays dropped.
    for (auto& [map, offs] : maps) {
      auto m = first_legal(padded_candidates(map));
      if (m) map = m->map;
      segments.push_back(m ? m->name : "");
    }
  }
  segments.resize(maps.size());
  size_t map_index = 0;
  for (size_t mi = 0; mi < maps.size(); ++mi) {
    const auto& [map, offs] = maps[mi];
    auto verdict = ref::validate_encode(map, 90);
    if (!verdict.must_accept()) continue;  // illegal maps are driver-API cases, not launches
    // The map's place among the form's maps, which picks its coordinate sets. A padded load / store / prefetch map
    // takes the place its refused map would have taken without moving the maps after it: the maps that ran before
    // keep their cases. A reduce type's map, padded or not, holds a place of its own.
    const bool stands_in = !t.reduce && !segments[mi].empty();
    const size_t slot = map_index;
    if (!stands_in) ++map_index;
    ref::TensorAccess acc;
    acc.mode = t.mode;
    acc.im2col_offsets = offs;
    acc.smem_offset = kBoxOff;
    // im2col coordinates are (c, w, [h, [d]], n); the tile sets work for them too.
    ref::TensorMapParams cmap = map;
    if (im2col) for (unsigned i = 0; i < map.rank; ++i) cmap.box[i] = i == 0 ? map.channels_per_pixel : 2;
    // The misaligned start (a trap on the H100) once per plain form: every trap costs a worker restart.
    // Deliberate traps only on the plain form of each rank and direction (no .tile spelled out, no cache hint,
    // not multicast / remote / prefetch; reductions: .add): every trap costs a worker restart.
    // (.tile spelled out: quals.load_mode, the qualifier as written; run.load_mode says tile either way.)
    const bool tile_spelled = f.quals.get_str("load_mode") == "tile";
    const bool plain_form = !run_bool(f, field::cache_hint) && run_str(f, field::cta_group, "none") == "none" &&
                            !tile_spelled && !t.multicast && !t.remote && !t.prefetch &&
                            (!t.reduce || t.redop == "add");
    // Interleave loads overrun their box on the H100 (device_quirks.hpp): plain forms only, inside only.
    if (interleave_load_overruns(map, t.prefetch) && !plain_form) continue;
    auto sets = coord_sets(cmap, t.nonneg, slot == 0 && plain_form, im2col);
    if (interleave_load_overruns(map, t.prefetch)) sets.resize(1);
    if (o.level == 0) sets.resize(1);
    // Every coordinate set (low edge, outside, all negative) on the first two maps of the form; the other maps
    // (swizzle, strides, fill, padding) inside and across the high edges, unless --level 2.
    if (o.level < 2 && slot >= 2) {
      std::vector<std::pair<std::string, std::array<int32_t, 5>>> keep;
      for (auto& cs : sets)
        if (cs.first == "inside" || cs.first == "high_edges") keep.push_back(cs);
      sets = keep;
    }
    for (auto& [cname, coords] : sets) {
      if ((t.store || t.reduce) && cname == "outside") continue;  // nothing would be written: kept for loads
      Recipe r;
      r.map = map;
      r.acc = acc;
      r.acc.coords = coords;
      std::ostringstream n;
      n << map_name(map) << segments[mi];
      if (im2col) n << ".cpp_" << map.channels_per_pixel << ".ppc_" << map.pixels_per_column << ".lower_"
                    << join(map.lower_corner.data(), map.rank - 2) << ".upper_" << join(map.upper_corner.data(), map.rank - 2);
      if (t.mode == ref::TensorMode::im2col) n << ".offs_" << offs[0] << "_" << offs[1] << "_" << offs[2];
      n << ".coords_" << join(coords.data(), map.rank) << "." << cname;
      if (t.reduce) {
        for (auto& ty : t.types)
          if (dtype_for(ty) == map.dtype) { r.redtype = ty; break; }
      }
      r.name = n.str();
      if (t.multicast) {
        for (auto [cl, mk] : {std::pair{2u, 0x3u}, {4u, 0xau}}) {
          Recipe m = r;
          m.cluster = cl;
          m.mask = mk;
          m.name = "cluster_" + std::to_string(cl) + ".ctamask_" + hex(mk) + "." + r.name;
          out.push_back(m);
        }
        continue;
      }
      if (t.remote) {
        for (uint32_t peer : {1u, 0u}) {
          Recipe m = r;
          m.cluster = 2;
          m.peer = peer;
          m.name = "peer_" + std::to_string(peer) + "." + r.name;
          out.push_back(m);
          if (cname != "inside") break;  // the self-peer once, on the plain box
        }
        continue;
      }
      out.push_back(r);
    }
  }
  // Two placements of the box in shared memory for the first recipe: 1024-aligned, and 128-aligned only.
  if (!out.empty() && out[0].map.swizzle == ref::Swizzle::NONE && !t.prefetch) {
    Recipe r = out[0];
    r.smem_off = kBoxOff + 128;
    r.acc.smem_offset = r.smem_off;
    r.name += ".smem_128";
    out.push_back(r);
  }
  return out;
}

std::vector<Variant> tensor_variants(const Form& f, const PlanOptions& o) {
  std::vector<Variant> v;
  const TensorForm t = tform(f);
  const auto deviations = ref::single_deviations(ref::PolicySet{});
  const auto rs = recipes(f, o);
  for (auto& r : rs) {
    Json p = Json::object();
    p["recipe"] = r.name;
    // A case expected to trap (a named alternative predicts it) runs in the serial trap phase, alone, so that its
    // trap cannot take down another case.
    bool traps = false;
    for (auto& dev : deviations)
      if (!traps && !ref::tensor_access_trap(r.map, r.acc, dev.second).empty()) traps = true;
    if (traps) p["traps"] = true;
    v.emplace_back(r.name, p);
  }
  // Every run.type_cells entry is run or reported: a cell outside the chapter's table is undefined behaviour
  // (the element type is the tensor map's, invisible to ptxas), so it is reported, never launched.
  if (!v.empty())
    for (auto& ty : t.types)
      if (std::none_of(rs.begin(), rs.end(), [&](const Recipe& r) { return r.redtype == ty; })) {
        Json p = Json::object();
        p["not_supported"] = "." + t.redop + " ." + ty + ": the run tier has no legal tensor map of that element "
                             "type for this form";
        v.emplace_back("type_" + ty, p);
      }
  if (!v.empty())
    for (auto& ty : t.not_in_table) {
      Json p = Json::object();
      p["not_supported"] = "." + t.redop + " ." + ty + " is not a cell of the chapter's redOp x type table for "
                           "cp.reduce.async.bulk.tensor (the element type comes from the tensor map, invisible to "
                           "ptxas): the behaviour is undefined, not a case to run";
      v.emplace_back("type_" + ty + ".not_in_table", p);
    }
  if (v.empty()) {
    Json p = Json::object();
    p["not_supported"] = "load mode " + run_str(f, field::load_mode) + ": the run tier drives tile and im2col modes (sm_90)";
    v.emplace_back("mode_" + run_str(f, field::load_mode), p);
  }
  return v;
}

void tensor_build(const RunCase& c, Rng& rng, const PlanOptions& o, Setup& s) {
  const Form& f = *c.form;
  TensorForm t = tform(f);
  Recipe r;
  if (c.explicit_params) {
    // An explicit case (exploration): the map and the access are data.
    const Json* m = c.params.get("map");
    const Json* a = c.params.get("access");
    if (!m || !a) throw std::runtime_error("an explicit tensor case needs the fields 'map' and 'access'");
    r.name = c.variant;
    r.map = map_from_json(*m);
    r.acc = access_from_json(*a);
    r.smem_off = r.acc.smem_offset;
    r.cluster = uint32_t(c.params.get_int("cluster", 1));
    r.mask = uint32_t(c.params.get_int("cta_mask"));
    r.peer = uint32_t(c.params.get_int("peer"));
    r.redtype = c.params.get_str("redtype");
    r.gbase = uint32_t(c.params.get_int("gbase"));
  } else {
    std::string want = c.params.get_str("recipe");
    bool found = false;
    for (auto& x : recipes(f, o))
      if (x.name == want) { r = x; found = true; break; }
    if (!found) throw std::runtime_error("no tensor recipe '" + want + "' for this form");
  }
  const ref::TensorMapParams& map = r.map;
  uint64_t gbytes = ref::tensor_global_bytes(map);
  uint32_t tx = ref::tensor_tx_bytes(map, r.acc);
  s.ranks = r.cluster;
  s.cluster = f.abi_row->cluster;
  s.window = uint32_t((r.smem_off + tensor_window_extent(map, r.acc, t.prefetch, tx) + size_t(o.smem_guard) + 15) /
                      16 * 16);
  s.smem_init = random_bytes(rng, size_t(s.window) * s.ranks);
  for (unsigned i = 0; i < 5; ++i) s.w[W_COORD0 + i] = uint32_t(r.acc.coords[i]);
  for (unsigned i = 0; i < 3; ++i) s.w[W_IM2COL0 + i] = r.acc.im2col_offsets[i];
  s.w[W_CTA_MASK] = r.mask;
  s.w[W_PEER] = r.peer;
  s.tmap = spec_of(map);
  std::optional<ref::ReduceOp> rop;
  if (t.reduce) {
    std::string why;
    rop = ref::parse_reduce_op(t.redop + "." + r.redtype, &why);
    if (!rop) throw std::runtime_error("reduce op " + t.redop + "." + r.redtype + ": " + why);
  }
  std::vector<uint8_t> tensor(gbytes);
  if (rop) {
    // the tensor's old values and the window's box: edge values of the type mixed with random ones
    std::vector<uint8_t> other(gbytes);
    fill_reduce_inputs(rop->type, tensor.data(), other.data(), gbytes / ref::elem_bytes(rop->type), rng);
    std::vector<uint8_t> a(tx), b(tx);
    fill_reduce_inputs(rop->type, a.data(), b.data(), tx / ref::elem_bytes(rop->type), rng);
    std::copy(b.begin(), b.end(), s.smem_init.begin() + r.smem_off);
  } else {
    rng.fill(tensor.data(), tensor.size());
  }
  if (t.load || t.prefetch) {
    s.gsrc_off = kGuard + r.gbase;
    s.gsrc = random_bytes(rng, s.gsrc_off + gbytes + kGuard);
    std::copy(tensor.begin(), tensor.end(), s.gsrc.begin() + long(s.gsrc_off));
    s.tmap.on_dst = false;
  } else {
    s.gdst_off = kGuard + r.gbase;
    s.gdst = random_bytes(rng, s.gdst_off + gbytes + kGuard);
    std::copy(tensor.begin(), tensor.end(), s.gdst.begin() + long(s.gdst_off));
    s.tmap.on_dst = true;
    s.w[W_SRC_OFF] = r.smem_off;
  }
  s.w[W_DST_OFF] = r.smem_off;
  if (t.mbarrier && t.load) {
    s.w[W_TX_BYTES] = tx;
    s.waiters = t.multicast ? (r.mask & ((1u << r.cluster) - 1)) : t.remote ? (1u << r.peer) : 1u;
    s.w[W_WAITERS] = s.waiters;
  }
  Setup* sp = &s;
  uint32_t win = s.window, cl = r.cluster, mask = r.mask, peer = r.peer;
  ref::TensorAccess acc = r.acc;
  // The model's images for a map: the case's own, or another one a host fault encodes instead (map_change: a
  // load may then read the trailing guard band, whose bytes are known).
  auto image_of = [sp, t, acc, rop, win, cl, mask, peer](const ref::TensorMapParams& map, const ref::PolicySet& ps,
                                                         bool guard_readable) -> Image {
    const Setup& s = *sp;
    Image img;
    img.gdst = s.gdst;
    img.smem = s.smem_init;
    if (t.prefetch) return img;
    if (t.load) {
      ref::ConstByteSpan g(s.gsrc.data() + s.gsrc_off, s.gsrc.size() - s.gsrc_off - (guard_readable ? 0 : kGuard));
      for (uint32_t k = 0; k < cl; ++k) {
        bool dest = t.multicast ? ((mask >> k) & 1) : t.remote ? k == peer : k == 0;
        if (!dest) continue;
        ref::tensor_load(map, acc, g, ref::ByteSpan{img.smem.data() + size_t(k) * win, win}, ps);
      }
      return img;
    }
    // The span runs to the end of the trailing guard band: tensor_store_oob=granule16_written writes past the
    // tensor's last element (the default never does; the guard band is still compared byte for byte).
    ref::ByteSpan g{img.gdst.data() + s.gdst_off, img.gdst.size() - s.gdst_off};
    ref::ConstByteSpan w(s.smem_init.data(), win);
    if (rop) ref::tensor_reduce(map, acc, rop->red, g, w, ps);
    else ref::tensor_store(map, acc, g, w, ps);
    return img;
  };
  // An alternative may read past the tensor's last element (interleave_tile_box=chunk_rows reads whole chunk rows):
  // the trailing guard band's bytes are known, so the model reads them as the device does. The default reading
  // never leaves the tensor.
  s.model = [image_of, map](const ref::PolicySet& ps) { return image_of(map, ps, !ps.is_default()); };
  s.expected = s.model(ref::PolicySet{});
  s.trap = [map, acc](const ref::PolicySet& ps) { return ref::tensor_access_trap(map, acc, ps); };
  if (t.mbarrier && t.load)
    s.tx = [map, acc](const ref::PolicySet& ps) -> uint64_t { return ref::tensor_tx_bytes(map, acc, ps); };
  const bool counts_tx = t.mbarrier && t.load;
  s.map_change = [sp, image_of, map, acc, tx, counts_tx](const TensorMapSpec& other) -> std::string {
    const ref::TensorMapParams m2 = params_of(other, map.global_address);
    try {
      if (counts_tx) {
        const uint32_t tx2 = ref::tensor_tx_bytes(m2, acc);
        if (tx2 != tx) return "the mbarrier's transaction bytes: " + std::to_string(tx) + " -> " + std::to_string(tx2);
      }
      const std::string trap = ref::tensor_access_trap(m2, acc);
      if (trap != sp->trap(ref::PolicySet{})) return "the access traps: " + trap;
      const Image now = image_of(m2, ref::PolicySet{}, true);
      const std::string d = image_difference(*sp, sp->expected, now);
      return d.empty() ? d : "the model's bytes (this map's, then the perturbed map's): " + d;
    } catch (const std::exception& e) {
      return std::string("the model cannot evaluate the perturbed map: ") + e.what();
    }
  };
  s.elem_bytes = esize(map.dtype);
  // Naming a byte: the box piece that holds it (its tensor coordinates), or the guard band.
  auto pieces = std::make_shared<std::vector<ref::BoxPiece>>(ref::tensor_box(map, acc));
  uint32_t smem_off = r.smem_off;
  auto sw = map.swizzle;
  const size_t gofs = t.load || t.prefetch ? s.gsrc_off : s.gdst_off;
  s.where = [pieces, smem_off, sw, t, gofs](bool smem, uint32_t, size_t off) -> std::string {
    if (smem) {
      for (auto& p : *pieces) {
        for (uint32_t b = 0; b < p.data_bytes; ++b) {
          uint64_t a = ref::swizzle_address(sw, smem_off + p.smem_off + b);
          if (a == off) {
            std::ostringstream m;
            m << (p.in_bounds ? "box element at tensor coords (" : "out-of-bounds fill for coords (");
            for (unsigned i = 0; i < 5; ++i) m << (i ? "," : "") << p.coords[i];
            m << ") byte " << b;
            return m.str();
          }
        }
      }
      return "window outside the box";
    }
    for (auto& p : *pieces)
      if (p.in_bounds && off >= gofs + p.global_off && off < gofs + p.global_off + p.data_bytes) {
        std::ostringstream m;
        m << "tensor element at coords (";
        for (unsigned i = 0; i < 5; ++i) m << (i ? "," : "") << p.coords[i];
        m << ")";
        return m.str();
      }
    return off < gofs ? "global guard band before the tensor" : "tensor element outside the box, or guard band";
  };
  s.info["tx_bytes"] = tx;
  s.info["tensor_bytes"] = (unsigned long long)gbytes;
  s.info["box_smem_off"] = smem_off;
  if (rop) s.info["op"] = ref::to_string(*rop);
}


}  // namespace

void register_tensor(AbiRegistry& r) {
  for (const char* abi : {"v1.mbarrier.tmap", "v1.mbarrier.cluster.tmap", "v1.bulk_group.tmap", "v1.prefetch.tmap"})
    set_plan(r, abi, tensor_variants, tensor_build);
}

}  // namespace ptxcts::run
