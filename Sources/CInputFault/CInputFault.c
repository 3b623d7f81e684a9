// The SIGBUS handler of a memory-mapped input (Swift side: MappedFileFault.swift). It is C
// because a signal handler may only touch plain memory and make system calls: a Swift global
// is reached through swift_once, which under ThreadSanitizer takes a runtime lock that the
// interrupted thread may hold (the test suite's TSan stage hung there).
#define _GNU_SOURCE
#include "CInputFault.h"
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char message[4096];
static volatile size_t message_length;
static volatile int exit_status = 3;

void nfctrace_input_fault_set_message(const char *text, size_t length) {
  if (length > sizeof message) length = sizeof message;
  message_length = 0;
  memcpy(message, text, length);
  message_length = length;
}

// Raw system calls rather than write(2) and _exit(2): sanitizers intercept those, and their
// interceptors may wait for a lock the interrupted thread holds.
__attribute__((no_sanitize("thread", "address")))
static void on_bus_error(int signal_number) {
  (void)signal_number;
  syscall(SYS_write, 2, message, message_length);
  syscall(SYS_exit_group, exit_status);
}

int nfctrace_input_fault_install(int status) {
  exit_status = status;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_bus_error;
  sigemptyset(&action.sa_mask);
  return sigaction(SIGBUS, &action, NULL);
}
