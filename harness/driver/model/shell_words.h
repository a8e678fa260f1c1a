// shell_words.h — a command line as one could paste it into a shell: each word
// as it is, or single-quoted when the shell would read it otherwise (a space,
// a quote, a glob or any other special character, or nothing at all).
#pragma once
#include <string>
#include <vector>

namespace allocstamp {

std::string shell_word(const std::string& word);
// The words, each through shell_word, joined by single spaces.
std::string shell_line(const std::vector<std::string>& words);

}  // namespace allocstamp
