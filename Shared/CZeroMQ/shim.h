#ifndef CAFE_CZEROMQ_SHIM_H
#define CAFE_CZEROMQ_SHIM_H
#include <zmq.h>
#include <errno.h>

/// errno as libzmq sees it (zmq_errno reads the thread-local value libzmq set).
static inline int cafe_zmq_errno(void) { return zmq_errno(); }

/// EAGAIN / EINTR / ETERM / EFSM exposed as functions: Swift cannot import every errno macro on every libc.
static inline int cafe_EAGAIN(void) { return EAGAIN; }
static inline int cafe_EINTR(void) { return EINTR; }
static inline int cafe_ETERM(void) { return ETERM; }
static inline int cafe_EFSM(void) { return EFSM; }
static inline int cafe_EMSGSIZE(void) { return EMSGSIZE; }
#endif
