#ifndef CAFE_CZEROMQ_SHIM_H
#define CAFE_CZEROMQ_SHIM_H
#include <zmq.h>
#include <errno.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/// errno as libzmq sees it (zmq_errno reads the thread-local value libzmq set).
static inline int cafe_zmq_errno(void) { return zmq_errno(); }

/// EAGAIN / EINTR / ETERM / EFSM exposed as functions: Swift cannot import every errno macro on every libc.
static inline int cafe_EAGAIN(void) { return EAGAIN; }
static inline int cafe_EINTR(void) { return EINTR; }
static inline int cafe_ETERM(void) { return ETERM; }
static inline int cafe_EFSM(void) { return EFSM; }
static inline int cafe_EMSGSIZE(void) { return EMSGSIZE; }

/// A monotonic timerfd, non-blocking: a file descriptor zmq_poll can wait on beside sockets, so a
/// poll wakes at a moment finer than its millisecond timeout. -1 with errno set when it fails.
static inline int cafe_wake_timer_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

/// Arms `fd` to fire once at `seconds` + `nanoseconds` on CLOCK_MONOTONIC (a moment already past
/// fires at once). 0, or -1 with errno set.
static inline int cafe_wake_timer_arm(int fd, long long seconds, long nanoseconds) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)seconds;
    spec.it_value.tv_nsec = nanoseconds;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

/// Takes the expirations `fd` holds, so it stops polling readable until it fires again.
static inline void cafe_wake_timer_clear(int fd) {
    unsigned long long expirations;
    while (read(fd, &expirations, sizeof expirations) == (ssize_t)sizeof expirations) {}
}
#endif
