#include "sim/platform/simgrid_xml.hpp"

#include <charconv>
#include <sstream>

#include "sim/platform/fabric.hpp"

namespace dtsim::platform {
namespace {

/// Shortest text that reads back as exactly `v`.
std::string exact(double v) {
  char buffer[32];
  return {buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr};
}

/// Writes the split-duplex link whose UP direction has id `up_id`.
void link(std::ostream& out, const Fabric& fabric, int up_id, const std::string& indent) {
  const DirectedLink& up = fabric.links()[static_cast<std::size_t>(up_id)];
  out << indent << "<link id=\"" << fabric.graph().duplex_name(up_id) << "\" bandwidth=\""
      << exact(up.bandwidth_Bps) << "Bps\" latency=\"" << exact(up.latency_s)
      << "s\" sharing_policy=\"SPLITDUPLEX\"/>\n";
}

/// Writes the <link_ctn> elements of a list of directed link ids.
void link_ctns(std::ostream& out, const Fabric& fabric, const std::vector<int>& ids, const std::string& indent) {
  for (int id : ids) {
    const bool up = id % 2 == 0;
    out << indent << "<link_ctn id=\"" << fabric.graph().duplex_name(id) << "\" direction=\""
        << (up ? "UP" : "DOWN") << "\"/>\n";
  }
}

void route(std::ostream& out, const Fabric& fabric, const std::string& src, const std::string& dst,
           const std::vector<int>& ids, const std::string& indent) {
  out << indent << "<route src=\"" << src << "\" dst=\"" << dst << "\" symmetrical=\"NO\">\n";
  link_ctns(out, fabric, ids, indent + "  ");
  out << indent << "</route>\n";
}

std::string name(const Fabric& fabric, int vertex) { return fabric.vertex_name(vertex); }

/// Hosts [first, first + count) with their links, and the routes among them and to/from `centre` (if >= 0).
void star_zone_body(std::ostream& out, const Fabric& fabric, int first, int count, int centre,
                    const std::string& indent) {
  for (int h = first; h < first + count; ++h)
    out << indent << "<host id=\"" << name(fabric, h) << "\" speed=\"1Tf\"/>\n";
  if (centre >= 0) out << indent << "<router id=\"" << name(fabric, centre) << "\"/>\n";
  for (int h = first; h < first + count; ++h) link(out, fabric, fabric.host_link(h), indent);
  for (int a = first; a < first + count; ++a) {
    for (int b = first; b < first + count; ++b)
      if (a != b) route(out, fabric, name(fabric, a), name(fabric, b), fabric.path(a, b).links, indent);
    if (centre >= 0) {
      route(out, fabric, name(fabric, a), name(fabric, centre), {fabric.host_link(a)}, indent);
      route(out, fabric, name(fabric, centre), name(fabric, a), {fabric.host_link(a) + 1}, indent);
    }
  }
}

}  // namespace

std::string export_simgrid_xml(const PlatformSpec& spec) {
  const Fabric fabric(spec);
  std::ostringstream out;
  out << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<!-- dtsim platform '" << spec.name << "' (" << topology_name(spec.topology)
      << "); routes computed by dtsim -->\n<platform version=\"4.1\">\n  <zone id=\"cluster\" routing=\"Full\">\n";
  if (spec.node.structured) {  // every GPU in one zone, every link, the route of every GPU pair
    for (int h = 0; h < spec.hosts(); ++h) out << "    <host id=\"" << name(fabric, h) << "\" speed=\"1Tf\"/>\n";
    for (int up = 0; up < fabric.link_count(); up += 2) link(out, fabric, up, "    ");
    for (int a = 0; a < spec.hosts(); ++a)
      for (int b = 0; b < spec.hosts(); ++b)
        if (a != b) route(out, fabric, name(fabric, a), name(fabric, b), fabric.path(a, b).links, "    ");
  } else if (spec.topology == Topology::star) {
    star_zone_body(out, fabric, 0, spec.hosts(), -1, "    ");
  } else {
    const int g = spec.gpus_per_node;
    for (int n = 0; n < spec.nodes; ++n) {
      out << "    <zone id=\"node" << n << "\" routing=\"Full\">\n";
      star_zone_body(out, fabric, n * g, g, fabric.node_switch(n), "      ");
      out << "    </zone>\n";
    }
    out << "    <zone id=\"switches\" routing=\"Full\">\n";  // a zone holds either zones or routers
    for (int v = 0; v < fabric.graph().vertex_count(); ++v)
      if (fabric.graph().vertex_kind(v) == VertexKind::network_switch)
        out << "      <router id=\"" << name(fabric, v) << "\"/>\n";
    out << "    </zone>\n";
    for (int up = 2 * spec.hosts(); up < fabric.link_count(); up += 2) link(out, fabric, up, "    ");
    for (int a = 0; a < spec.nodes; ++a)
      for (int b = 0; b < spec.nodes; ++b) {
        if (a == b) continue;
        out << "    <zoneRoute src=\"node" << a << "\" dst=\"node" << b << "\" gw_src=\""
            << name(fabric, fabric.node_switch(a)) << "\" gw_dst=\"" << name(fabric, fabric.node_switch(b))
            << "\" symmetrical=\"NO\">\n";
        link_ctns(out, fabric, fabric.node_route(a, b), "      ");
        out << "    </zoneRoute>\n";
      }
  }
  out << "  </zone>\n</platform>\n";
  return out.str();
}

}  // namespace dtsim::platform
