// shell_words.h — a command line as one could paste it into a shell: each word
// as it is, or single-quoted when the shell would read it otherwise (a space,
// a quote, a glob or any other special character, or nothing at all).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace allocstamp {

std::string shell_word(const std::string& word);
// The words, each through shell_word, joined by single spaces.
std::string shell_line(const std::vector<std::string>& words);
// The same as lines of at most `width` columns that a shell reads as one
// command: each but the last ended by " \", the first starting with `indent`
// spaces and the others with `indent` + 2; a word longer than a line stands
// alone. Every line ends with "\n".
std::string shell_lines(const std::vector<std::string>& words, std::size_t width, std::size_t indent);

}  // namespace allocstamp
