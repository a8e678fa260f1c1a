// shell_words.cpp — quoting for a POSIX shell (shell_words.h).
#include "model/shell_words.h"

namespace allocstamp {

std::string shell_word(const std::string& word) {
  if (!word.empty() &&
      word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=./,:+@%") == std::string::npos)
    return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_line(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out.append(out.empty() ? "" : " ").append(shell_word(w));  // GCC 12 warns wrongly on a + b
  return out;
}

std::string shell_lines(const std::vector<std::string>& words, std::size_t width, std::size_t indent) {
  std::string out, line(indent, ' ');
  bool fresh = true;  // no word on the line yet
  for (const auto& w : words) {
    const std::string word = shell_word(w);
    if (!fresh && line.size() + 1 + word.size() + 2 > width) {  // room for the " \" that continues it
      out.append(line).append(" \\\n");
      line.assign(indent + 2, ' ');
      fresh = true;
    }
    line.append(fresh ? "" : " ").append(word);
    fresh = false;
  }
  return out.append(line).append("\n");
}

}  // namespace allocstamp
