// errors.h — the driver's typed errors. Each says what went wrong and how to
// fix it; main catches them once: UsageError exits 2 before anything runs.
// A message carries what files hold (paths, meta.json's fields), so its
// control bytes are shown escaped (printable_text): a NUL would end it early.
#pragma once
#include <stdexcept>
#include <string>

namespace allocstamp {

class UsageError : public std::runtime_error {
 public:
  UsageError(const std::string& what, const std::string& fix);
  // Another UsageError's message, with words before it (the file's role).
  UsageError(const std::string& prefix, const UsageError& inner);
};

class RunError : public std::runtime_error {
 public:
  RunError(const std::string& what, const std::string& fix);
};

}  // namespace allocstamp
