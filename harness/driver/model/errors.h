// errors.h — the driver's typed errors. Each says what went wrong and how to
// fix it; main catches them once: UsageError exits 2 before anything runs.
#pragma once
#include <stdexcept>
#include <string>

namespace allocstamp {

class UsageError : public std::runtime_error {
 public:
  UsageError(const std::string& what, const std::string& fix) : std::runtime_error(what + " — " + fix) {}
  // Another UsageError's message, with words before it (the file's role).
  UsageError(const std::string& prefix, const UsageError& inner) : std::runtime_error(prefix + inner.what()) {}
};

class RunError : public std::runtime_error {
 public:
  RunError(const std::string& what, const std::string& fix) : std::runtime_error(what + " — " + fix) {}
};

}  // namespace allocstamp
