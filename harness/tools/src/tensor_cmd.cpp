#include <algorithm>
#include <istream>
#include <iterator>
#include <ostream>
#include <set>

#include "commands.hpp"
#include "json_fields.hpp"
#include "ptxcts/ref/tensor.hpp"

namespace ptxcts::tools {

using namespace ptxcts::ref;

namespace {

constexpr std::uint64_t kMaxTensorBytes = 256ull << 20;

const std::set<std::string> kFields = {"dtype",        "dims",           "strides",           "box",
                                       "element_strides", "interleave",  "swizzle",           "oob_fill",
                                       "l2_promotion", "mode",           "lower_corner",      "upper_corner",
                                       "channels_per_pixel", "pixels_per_column", "offsets",  "w_halo",
                                       "w_offset",     "coords",         "smem_offset",       "global_address",
                                       "fill"};

template <typename E, typename Parse>
E enum_field(const Json& obj, const char* name, E dflt, Parse parse, const char* choices) {
  const Json* v = obj.get(name);
  if (!v) return dflt;
  const std::string& s = json_string(*v, name);
  const auto e = parse(s);
  if (!e) throw JsonError(std::string("field '") + name + "': '" + s + "' is not one of " + choices);
  return *e;
}

std::vector<std::int64_t> int_array(const Json& obj, const char* name, std::size_t n_min, std::size_t n_max,
                                    std::int64_t lo, std::int64_t hi, bool required) {
  std::vector<std::int64_t> out;
  const Json* v = obj.get(name);
  if (!v) {
    if (required) throw JsonError(std::string("field '") + name + "' is required");
    return out;
  }
  const auto& items = json_array(*v, name);
  if (items.size() < n_min || items.size() > n_max)
    throw JsonError(std::string("field '") + name + "': expected " +
                    (n_min == n_max ? std::to_string(n_min) : std::to_string(n_min) + ".." + std::to_string(n_max)) +
                    " values, got " + std::to_string(items.size()));
  for (std::size_t i = 0; i < items.size(); ++i)
    out.push_back(json_int(items[i], std::string(name) + "[" + std::to_string(i) + "]", lo, hi));
  return out;
}

std::int64_t int_field(const Json& obj, const char* name, std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
  const Json* v = obj.get(name);
  return v ? json_int(*v, name, lo, hi) : dflt;
}

}  // namespace

int run_tensor(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  PolicySet policies;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string why;
    if (args[i] == "--policy" && i + 1 < args.size()) {
      if (!policies.set_assignment(args[++i], &why)) {
        err << "ptxcts-ref tensor: --policy: " << why << "\n";
        return kExitUsage;
      }
    } else {
      err << "ptxcts-ref tensor: unknown or incomplete argument '" << args[i] << "'\n";
      return kExitUsage;
    }
  }
  TensorMapParams map;
  TensorAccess access;
  std::uint64_t fill_base = 0;
  try {
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Json doc = parse_json(text);
    if (!doc.is_object()) throw JsonError(std::string("expected one JSON object, got ") + doc.kind_name());
    for (const auto& m : doc.obj())
      if (!kFields.count(m.first)) throw JsonError("unknown field '" + m.first + "'");

    const Json* dt = doc.get("dtype");
    if (!dt) throw JsonError("field 'dtype' is required");
    const std::string& dts = json_string(*dt, "dtype");
    const auto dtype = parse_tensor_data_type(dts);
    if (!dtype) throw JsonError("field 'dtype': '" + dts + "' is not a CUtensorMapDataType name (UINT8 ... 16U6_ALIGN16B)");
    map.dtype = *dtype;
    access.mode = enum_field(doc, "mode", TensorMode::tile, parse_tensor_mode,
                             "tile, gather4, im2col, im2col_w, im2col_w128");
    if (access.mode == TensorMode::scatter4 || access.mode == TensorMode::im2col_no_offs)
      throw JsonError("field 'mode': '" + std::string(to_string(access.mode)) + "' is a store mode; ptxcts-ref tensor "
                      "models loads");
    map.kind = encode_kind_for(access.mode);

    const auto dims = int_array(doc, "dims", 1, 5, 1, std::int64_t{1} << 40, true);
    map.rank = static_cast<unsigned>(dims.size());
    for (unsigned i = 0; i < map.rank; ++i) map.dims[i] = static_cast<std::uint64_t>(dims[i]);
    const auto strides = int_array(doc, "strides", map.rank - 1, map.rank - 1, 0, std::int64_t{1} << 50, false);
    if (strides.empty())
      map.strides = dense_strides(map.dtype, map.rank, map.dims);
    else
      for (unsigned i = 0; i + 1 < map.rank; ++i) map.strides[i] = static_cast<std::uint64_t>(strides[i]);
    const auto es = int_array(doc, "element_strides", map.rank, map.rank, 0, 1 << 30, false);
    for (unsigned i = 0; i < es.size(); ++i) map.element_strides[i] = static_cast<std::uint32_t>(es[i]);
    map.interleave = enum_field(doc, "interleave", Interleave::NONE, parse_interleave, "NONE, 16B, 32B");
    map.swizzle = enum_field(doc, "swizzle", Swizzle::NONE, parse_swizzle,
                             "NONE, 32B, 64B, 128B, 128B_ATOM_32B, 128B_ATOM_32B_FLIP_8B, 128B_ATOM_64B, 96B");
    map.oob_fill = enum_field(doc, "oob_fill", OobFill::NONE, parse_oob_fill, "NONE, NAN_REQUEST_ZERO_FMA");
    map.l2_promotion = enum_field(doc, "l2_promotion", L2Promotion::NONE, parse_l2_promotion,
                                  "NONE, L2_64B, L2_128B, L2_256B");
    if (const Json* ga = doc.get("global_address")) map.global_address = json_u64(*ga, "global_address");

    const bool tiled = map.kind == EncodeKind::tiled;
    if (tiled) {
      const auto box = int_array(doc, "box", map.rank, map.rank, 0, 1 << 30, true);
      for (unsigned i = 0; i < map.rank; ++i) map.box[i] = static_cast<std::uint32_t>(box[i]);
      for (const char* f : {"lower_corner", "upper_corner", "channels_per_pixel", "pixels_per_column", "offsets",
                            "w_halo", "w_offset"})
        if (doc.get(f)) throw JsonError(std::string("field '") + f + "' applies to the im2col modes only");
    } else {
      if (doc.get("box")) throw JsonError("field 'box': im2col maps have no boxDim (channels_per_pixel x pixels_per_column)");
      if (map.rank < 3) throw JsonError("field 'dims': im2col modes need 3 to 5 dimensions, got " + std::to_string(map.rank));
      const bool wide = map.kind == EncodeKind::im2col_wide;
      const std::size_t nc = wide ? 1 : map.rank - 2;
      const auto lo = int_array(doc, "lower_corner", nc, nc, -(1 << 20), 1 << 20, true);
      const auto up = int_array(doc, "upper_corner", nc, nc, -(1 << 20), 1 << 20, true);
      for (std::size_t i = 0; i < nc; ++i) {
        map.lower_corner[i] = static_cast<int>(lo[i]);
        map.upper_corner[i] = static_cast<int>(up[i]);
      }
      map.channels_per_pixel = static_cast<std::uint32_t>(int_field(doc, "channels_per_pixel", -1, 0, 1 << 20));
      if (!doc.get("channels_per_pixel")) throw JsonError("field 'channels_per_pixel' is required");
      const bool w128 = access.mode == TensorMode::im2col_w128;
      if (!w128 && !doc.get("pixels_per_column")) throw JsonError("field 'pixels_per_column' is required");
      map.pixels_per_column = static_cast<std::uint32_t>(int_field(doc, "pixels_per_column", 0, 0, 1 << 20));
      map.wide_mode = w128 ? Im2colWideMode::W128 : Im2colWideMode::W;
      if (wide) {
        if (doc.get("offsets")) throw JsonError("field 'offsets': im2col::w modes take w_halo and w_offset");
        access.w_halo = static_cast<std::uint16_t>(int_field(doc, "w_halo", 0, 0, 65535));
        access.w_offset = static_cast<std::uint16_t>(int_field(doc, "w_offset", 0, 0, 65535));
      } else {
        if (doc.get("w_halo") || doc.get("w_offset")) throw JsonError("field 'w_halo'/'w_offset': im2col::w modes only");
        const auto off = int_array(doc, "offsets", nc, nc, 0, 65535, false);
        for (std::size_t i = 0; i < off.size(); ++i) access.im2col_offsets[i] = static_cast<std::uint16_t>(off[i]);
      }
    }
    const std::size_t ncoords = access.mode == TensorMode::gather4 ? 5 : map.rank;
    const auto coords = int_array(doc, "coords", ncoords, ncoords, INT32_MIN, INT32_MAX, true);
    for (std::size_t i = 0; i < ncoords; ++i) access.coords[i] = static_cast<std::int32_t>(coords[i]);
    access.smem_offset = static_cast<std::uint32_t>(int_field(doc, "smem_offset", 0, 0, 1 << 30));

    const Json* fill = doc.get("fill");
    if (!fill) throw JsonError("field 'fill' is required ({\"kind\": \"index\", \"base\": \"0x1\"})");
    if (!fill->is_object()) throw JsonError("field 'fill': expected an object");
    for (const auto& m : fill->obj())
      if (m.first != "kind" && m.first != "base") throw JsonError("unknown field 'fill." + m.first + "'");
    const Json* kind = fill->get("kind");
    if (!kind || json_string(*kind, "fill.kind") != "index")
      throw JsonError("field 'fill.kind': expected \"index\"");
    if (const Json* b = fill->get("base")) fill_base = json_u64(*b, "fill.base");
  } catch (const JsonError& e) {
    err << "ptxcts-ref tensor: " << e.what() << "\n";
    return kExitMalformed;
  }

  try {
    // Judge the map first: a map the driver must reject is exit 2 whatever else is wrong.
    const EncodeVerdict verdict = validate_encode(map, 0, policies);
    if (verdict.must_reject()) throw TensorMapRejected(map.kind, verdict.violations.front());
    const std::uint64_t gbytes = tensor_global_bytes(map);
    if (gbytes > kMaxTensorBytes)
      throw ModelError("the tensor occupies " + std::to_string(gbytes) + " bytes; ptxcts-ref fills at most " +
                       std::to_string(kMaxTensorBytes));
    const std::vector<std::uint8_t> global = make_index_tensor(map, fill_base);
    const std::vector<ByteWrite> writes =
        tensor_load_writes(map, access, ConstByteSpan{global.data(), global.size()}, policies);
    const std::uint32_t tx = tensor_tx_bytes(map, access, policies);
    std::uint64_t end = access.smem_offset;
    for (const ByteWrite& w : writes) end = std::max<std::uint64_t>(end, std::uint64_t{w.addr} + 1);
    std::vector<int> image(end - access.smem_offset, -1);
    for (const ByteWrite& w : writes) {
      if (w.addr < access.smem_offset) throw ModelError("a byte lands below smem_offset; give a 128-aligned smem_offset");
      image[w.addr - access.smem_offset] = w.value;
    }
    std::string line;
    for (std::size_t i = 0; i < image.size(); ++i) {
      static const char kHex[] = "0123456789abcdef";
      if (image[i] < 0) {
        line += "..";  // inside the image's extent but not written by this load
      } else {
        line += kHex[(image[i] >> 4) & 0xf];
        line += kHex[image[i] & 0xf];
      }
      if (i % 32 == 31 || i + 1 == image.size()) {
        out << line << "\n";
        line.clear();
      }
    }
    out << "tx_bytes " << tx << "\n";
    for (const RuleViolation& o : verdict.open)
      err << "ptxcts-ref tensor: note: open point " << o.rule << ": " << o.sentence << " [" << o.detail << "]\n";
  } catch (const TensorMapRejected& e) {
    err << "ptxcts-ref tensor: " << e.what() << "\n";
    return 2;
  } catch (const ModelError& e) {
    err << "ptxcts-ref tensor: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace ptxcts::tools
