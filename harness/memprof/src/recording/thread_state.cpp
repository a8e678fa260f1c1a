// thread_state.cpp — the definitions of `self` and `shared` (thread_state.h):
// every thread's state starts zero but `slow`, so its first hook takes the
// careful path and attaches it.
#include "recording/thread_state.h"

namespace memprof {

// `gate` holds depth in its low half and slow in its high half on this
// little-endian target.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "gate's halves assume little-endian");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
__thread ThreadState self __attribute__((tls_model("initial-exec"))) = {{uint32_t(1) << 16}};
#pragma GCC diagnostic pop
constinit Shared shared{};

}  // namespace memprof
