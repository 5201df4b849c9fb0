// The census dump's signal handler: writing one byte to a pipe is all it does (write(2) is
// async-signal-safe); a thread that reads the pipe takes the dump.
#define _GNU_SOURCE
#include "CRetainGraphCensus.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#define RGC_SIGNALS 65

static _Atomic int rgc_signal_fds[RGC_SIGNALS];

static void rgc_signal_pipe_handler(int signal) {
  int saved = errno;
  if (signal > 0 && signal < RGC_SIGNALS) {
    int fd = atomic_load(&rgc_signal_fds[signal]);
    if (fd > 0) {
      char byte = 1;
      (void)!write(fd, &byte, 1);
    }
  }
  errno = saved;
}

int rgc_install_signal_pipe(int signal, int fd) {
  if (signal <= 0 || signal >= RGC_SIGNALS) {
    errno = EINVAL;
    return -2;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return -2;
  int previous = atomic_exchange(&rgc_signal_fds[signal], fd);
  struct sigaction action = {0};
  action.sa_handler = rgc_signal_pipe_handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(signal, &action, NULL) != 0) {
    atomic_store(&rgc_signal_fds[signal], previous);
    return -2;
  }
  // A process started with the signal blocked (a parent's mask is inherited) would never take it.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  return previous > 0 ? previous : -1;
}
