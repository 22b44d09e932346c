#include "viz/html.hpp"

#include <fmt/format.h>

namespace dtsim::viz::html {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string row(const std::vector<std::string>& cells, const char* tag) {
  std::string text = "<tr>";
  for (const std::string& c : cells) text += fmt::format("<{0}>{1}</{0}>", tag, escape(c));
  return text + "</tr>\n";
}

std::string figure(const std::string& id, const std::string& svg, const std::string& caption) {
  const auto start = svg.find("<svg");
  if (start == std::string::npos) return "";
  return "<figure id=\"" + escape(id) + "\">" + svg.substr(start) + "<figcaption>" + escape(caption) +
         "</figcaption></figure>\n";
}

}  // namespace dtsim::viz::html
