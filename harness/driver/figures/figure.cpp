// figure.cpp — gnuplot's string literal (figure.h).
#include "figures/figure.h"

namespace allocstamp {

std::string gnuplot_string(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "''";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';  // a NUL or a newline would end gnuplot's command
    else out += c;
  }
  return out + "'";
}

}  // namespace allocstamp
