/* Every instance of the process: the list that keeps finalized handles
 * (dead, but safe to pass), where each was created, and the attribute on
 * MPI_COMM_SELF that finalizes a forgotten instance at MPI_Finalize. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/shoal_instance.h"
#include "core/shoal_core.h"

/* Every instance ever created stays on this list: a finalized handle keeps
 * its (small) struct, marked dead, so later calls on it fail cleanly
 * instead of touching freed memory. */
static pthread_mutex_t shoal__registry_lock = PTHREAD_MUTEX_INITIALIZER;
struct shoal__reg {
    shoal_t sh;
    struct shoal__reg *next;
};
static struct shoal__reg *shoal__registry;

static void shoal__registry_add_locked(struct shoal__reg *r, shoal_t sh)
{
    r->sh = sh;
    r->next = shoal__registry;
    shoal__registry = r;
}

/* When the library is unloaded (dlclose of a plugin that brought it, or
 * exit, after the application's atexit handlers), no handle can be used any
 * more: free finalized instances, so that they are not leaks. Live
 * instances stay: finalizing them is the application's job. */
__attribute__((destructor)) static void shoal__unload(void)
{
    struct shoal__reg **link = &shoal__registry;

    pthread_mutex_lock(&shoal__registry_lock);
    while (*link != NULL) {
        struct shoal__reg *r = *link;
        if (r->sh->magic != SHOAL__MAGIC_DEAD) {
            link = &r->next;
            continue;
        }
        *link = r->next;
        free(r->sh);
        free(r);
    }
    pthread_mutex_unlock(&shoal__registry_lock);
}

void shoal__note_creator(shoal_t sh, const void *caller)
{
    Dl_info info;
    const char *obj, *slash;

    memset(&info, 0, sizeof(info));
    if (caller == NULL || dladdr(caller, &info) == 0) {
        snprintf(sh->creator, sizeof(sh->creator), "%p", caller);
        return;
    }
    obj = info.dli_fname ? info.dli_fname : "?";
    slash = strrchr(obj, '/');
    obj = slash ? slash + 1 : obj;
    if (info.dli_sname != NULL)
        snprintf(sh->creator, sizeof(sh->creator), "%s+0x%lx in %s", info.dli_sname,
                 (unsigned long)((const char *)caller - (const char *)info.dli_saddr), obj);
    else
        snprintf(sh->creator, sizeof(sh->creator), "%s+0x%lx", obj,
                 (unsigned long)((const char *)caller - (const char *)info.dli_fbase));
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: finalize whatever
 * the application left alive, while MPI still works, and say so. */
static int shoal__self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    shoal_t sh = value;
    (void)comm;
    (void)keyval;
    (void)extra;
    if (shoal__live(sh) && !sh->in_finalize) {
        SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_INIT,
                   "an instance of %d PE%s (PE %d here; created by the shoal_init call at %s) was not finalized "
                   "before MPI_Finalize: shoal finalizes it now, collectively; call shoal_finalize on every PE "
                   "before MPI_Finalize",
                   sh->n_pes, sh->n_pes == 1 ? "" : "s", sh->my_pe, sh->creator[0] ? sh->creator : "an unknown place");
        shoal__finalize(sh);
    }
    return MPI_SUCCESS;
}

/* MPI_COMM_SELF keeps shoal__self_delete until MPI_Finalize, even after
 * the instance is finalized: the object holding it (libshoal.so, or a
 * plugin that linked libshoal.a) must stay mapped after a dlclose. */
static void shoal__pin_once(void)
{
    Dl_info info;
    void *self;

    if (dladdr((void *)shoal__self_delete, &info) == 0 || info.dli_fname == NULL) return;
    /* NULL for the main program (never unloaded anyway). */
    self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_INIT, "%s stays loaded until exit%s", info.dli_fname,
               self ? "" : " (the program itself)");
}

static void shoal__pin_code(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, shoal__pin_once);
}

void *shoal__registry_entry_new(void) { return calloc(1, sizeof(struct shoal__reg)); }

int shoal__registry_hook(shoal_t sh)
{
    int rc;

    shoal__pin_code();
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, shoal__self_delete, &sh->keyval, NULL);
    if (rc != MPI_SUCCESS) return shoal__mpi_error(sh, "shoal_init", "MPI_Comm_create_keyval", rc);
    rc = MPI_Comm_set_attr(MPI_COMM_SELF, sh->keyval, sh);
    if (rc != MPI_SUCCESS) return shoal__mpi_error(sh, "shoal_init", "MPI_Comm_set_attr", rc);
    sh->attr_set = true;
    return SHOAL_SUCCESS;
}

void shoal__registry_add(shoal_t sh, void *entry)
{
    pthread_mutex_lock(&shoal__registry_lock);
    shoal__registry_add_locked(entry, sh);
    pthread_mutex_unlock(&shoal__registry_lock);
}
