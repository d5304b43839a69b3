/* Logging (runtime/base/log.c): SHOAL_DEBUG's level, SHOAL_DEBUG_SUBSYS's
 * subsystems, one line per message on stderr naming the PE. */
#ifndef SHOAL_LOG_H
#define SHOAL_LOG_H

#include "base/shoal_base.h"

enum { SHOAL__LOG_NONE = 0, SHOAL__LOG_WARN = 1, SHOAL__LOG_INFO = 2, SHOAL__LOG_TRACE = 3 };

#define SHOAL__SUBSYS_MAP(X)                                                                                           \
    X(INIT, 0x01)                                                                                                      \
    X(TOPO, 0x02)                                                                                                      \
    X(HEAP, 0x04)                                                                                                      \
    X(RMA, 0x08)                                                                                                       \
    X(COLL, 0x10)                                                                                                      \
    X(CUDA, 0x20)                                                                                                      \
    X(ENV, 0x40)
enum {
#define SHOAL__SUB_ENUM(name, bit) SHOAL__SUB_##name = (bit),
    SHOAL__SUBSYS_MAP(SHOAL__SUB_ENUM)
#undef SHOAL__SUB_ENUM
        SHOAL__SUB_ALL = 0x7f
};

extern SHOAL__HIDDEN int shoal__log_level; /* -1 until first use */
extern SHOAL__HIDDEN unsigned shoal__log_subsys;
SHOAL__HIDDEN void shoal__log_init(void);
SHOAL__HIDDEN void shoal__log(int level, unsigned subsys, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* PE printed in log prefixes for this thread's current instance (-1: none). */
SHOAL__HIDDEN void shoal__log_set_pe(int pe);
#define SHOAL__LOG(level, subsys, ...)                                                                                 \
    do {                                                                                                               \
        if (SHOAL__UNLIKELY(shoal__log_level != 0)) shoal__log((level), (subsys), __VA_ARGS__);                        \
    } while (0)

#endif /* SHOAL_LOG_H */
