// errors.cpp — the typed errors' messages, their control bytes shown escaped
// (defined here, not in errors.h, so a change to them rebuilds one file).
#include "model/errors.h"

#include "model/format.h"

namespace allocstamp {

UsageError::UsageError(const std::string& what, const std::string& fix)
    : std::runtime_error(printable_text(what + " — " + fix)) {}

UsageError::UsageError(const std::string& prefix, const UsageError& inner)
    : std::runtime_error(printable_text(prefix) + inner.what()) {}

RunError::RunError(const std::string& what, const std::string& fix)
    : std::runtime_error(printable_text(what + " — " + fix)) {}

}  // namespace allocstamp
