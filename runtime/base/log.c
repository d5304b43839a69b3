/* SHOAL_DEBUG / SHOAL_DEBUG_SUBSYS logging. Silent unless asked. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/shoal_env.h"

int shoal__log_level = -1;
unsigned shoal__log_subsys = SHOAL__SUB_ALL;
static pthread_once_t shoal__log_once = PTHREAD_ONCE_INIT;
static _Thread_local int shoal__log_pe = -1;
static char shoal__hostname[64];

static void shoal__log_setup(void)
{
    shoal__settings_t env;

    /* An invalid SHOAL_DEBUG or SHOAL_DEBUG_SUBSYS keeps its default here
     * (silent, every subsystem); shoal_init refuses it, naming it. */
    shoal__env_load(&env);
    shoal__log_subsys = env.debug_subsys;
    if (gethostname(shoal__hostname, sizeof(shoal__hostname)) != 0)
        snprintf(shoal__hostname, sizeof(shoal__hostname), "?");
    shoal__hostname[sizeof(shoal__hostname) - 1] = '\0';
    shoal__log_level = env.debug;
}

void shoal__log_init(void) { pthread_once(&shoal__log_once, shoal__log_setup); }

void shoal__log_set_pe(int pe) { shoal__log_pe = pe; }

void shoal__log(int level, unsigned subsys, const char *fmt, ...)
{
    static const char *names[] = {"", "WARN", "INFO", "TRACE"};
    char line[1024];
    int n;
    va_list ap;

    if (shoal__log_level < 0) shoal__log_init();
    if (level > shoal__log_level || !(subsys & shoal__log_subsys)) return;
    n = snprintf(line, sizeof(line), "%s:%d:%d shoal %s ", shoal__hostname, (int)getpid(), shoal__log_pe, names[level]);
    if (n < 0 || (size_t)n >= sizeof(line)) n = 0;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}
