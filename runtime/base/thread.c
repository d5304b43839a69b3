/* The MPI thread level's rules (checked with SHOAL_CHECK=full): which
 * thread may be inside an instance, and when. */
#include "base/shoal_instance.h"

/* One address per thread: who is inside an instance. */
static _Thread_local char shoal__thread_token;

_Atomic int shoal__thread_level = -1;

const char *shoal__thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown MPI thread level";
    }
}

/* Below MPI_THREAD_MULTIPLE one thread at a time may be inside MPI in the
 * whole process, so the owner is the process's, whatever the instance. */
static _Atomic uintptr_t shoal__proc_owner;
static _Atomic(const char *) shoal__proc_owner_call;

int shoal__thread_enter(shoal_t sh, shoal__robust_t *sd, const char *call, bool coll, bool *held_p)
{
    uintptr_t me = (uintptr_t)&shoal__thread_token, cur = 0;
    int level = atomic_load_explicit(&shoal__thread_level, memory_order_relaxed);
    bool multiple = level == MPI_THREAD_MULTIPLE;
    _Atomic uintptr_t *owner = multiple ? &sd->coll_owner : &shoal__proc_owner;
    _Atomic(const char *) *owner_call = multiple ? &sd->owner_call : &shoal__proc_owner_call;

    *held_p = false;
    if (level == MPI_THREAD_FUNNELED || level == MPI_THREAD_SINGLE) {
        int is_main = 1;
        MPI_Is_thread_main(&is_main);
        if (!is_main)
            return shoal__error(sh, SHOAL_ERR_THREAD, call,
                                "called from a thread other than the main one, but MPI was initialized with %s: only "
                                "the main thread may call shoal (or use MPI_THREAD_SERIALIZED or "
                                "MPI_THREAD_MULTIPLE)",
                                shoal__thread_level_name(level));
    }
    if (multiple && !coll) return SHOAL_SUCCESS;
    if (!atomic_compare_exchange_strong(owner, &cur, me)) {
        const char *other = atomic_load(owner_call);
        if (cur == me) return SHOAL_SUCCESS; /* nested, e.g. a barrier's quiet */
        if (multiple)
            return shoal__error(sh, SHOAL_ERR_THREAD, call,
                                "another thread of this PE is inside a collective (%s) on this instance: collectives "
                                "must be called by one thread at a time, in the same order on every PE",
                                other ? other : "?");
        return shoal__error(sh, SHOAL_ERR_THREAD, call,
                            "another thread of this process is inside %s (on this or another instance) at the same "
                            "time, but MPI was initialized with %s, which allows one thread at a time in MPI: "
                            "serialize the calls, or initialize MPI with MPI_THREAD_MULTIPLE (threads may then put, "
                            "get and quiet at once)",
                            other ? other : "a shoal call", shoal__thread_level_name(level));
    }
    atomic_store(owner_call, call);
    *held_p = true;
    return SHOAL_SUCCESS;
}

void shoal__thread_leave(shoal__robust_t *sd, bool coll, bool held)
{
    if (!held) return;
    if (shoal__threads_multiple() && coll)
        atomic_store_explicit(&sd->coll_owner, 0, memory_order_release);
    else
        atomic_store_explicit(&shoal__proc_owner, 0, memory_order_release);
}
