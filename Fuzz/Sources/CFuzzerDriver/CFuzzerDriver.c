// Only the header matters: it declares libFuzzer's LLVMFuzzerRunDriver for Swift. SwiftPM
// renames each executable's entry point and aliases `main` to it, so libFuzzer's own `main`
// is not used; the fuzzers' top-level code calls the driver instead.
#include "CFuzzerDriver.h"
