/* Live handles: every handle that a create function made and its destroy has not released yet,
 * with its kind, in one process-wide hash set guarded by a mutex. Calls look their handles up
 * here before reading them, so a destroyed, never created or wrong-kind handle is reported
 * without touching the memory behind it (a tag stored inside a freed handle could not be read
 * without a use after free).
 *
 * Open addressing with linear probing, at most half full; a deletion shifts the rest of its
 * run back, so there are no tombstones. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

typedef struct handle_entry {
    const void *handle; /* NULL: a free slot */
    const stenc_handle_kind *kind;
} handle_entry;

enum { HANDLE_MIN_SLOTS = 64 };

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static handle_entry *slots; /* capacity entries, a power of two */
static size_t capacity, live;

static size_t home_slot(const void *handle, size_t cap) {
    uint64_t h = (uint64_t)(uintptr_t)handle * 0x9e3779b97f4a7c15ull;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

/* The slot holding `handle`, or SIZE_MAX. Called with the lock held. */
static size_t find_slot(const void *handle) {
    if (!slots || !handle) return SIZE_MAX;
    for (size_t i = home_slot(handle, capacity);; i = (i + 1) & (capacity - 1)) {
        if (slots[i].handle == handle) return i;
        if (!slots[i].handle) return SIZE_MAX;
    }
}

static void place(handle_entry *table, size_t cap, handle_entry e) {
    size_t i = home_slot(e.handle, cap);
    while (table[i].handle)
        i = (i + 1) & (cap - 1);
    table[i] = e;
}

/* Room for one more entry; 0 when the table could not grow. Called with the lock held. */
static int reserve_one(void) {
    if ((live + 1) * 2 <= capacity) return 1;
    size_t cap = capacity ? 2 * capacity : HANDLE_MIN_SLOTS;
    handle_entry *table = calloc(cap, sizeof *table);
    if (!table) return 0;
    for (size_t i = 0; i < capacity; i++)
        if (slots[i].handle) place(table, cap, slots[i]);
    free(slots);
    slots = table;
    capacity = cap;
    return 1;
}

/* Empty slot i and move later entries of its run back, so that every entry stays reachable
 * from its home slot. Called with the lock held. */
static void erase_slot(size_t i) {
    const size_t mask = capacity - 1;
    slots[i].handle = NULL;
    for (size_t j = (i + 1) & mask; slots[j].handle; j = (j + 1) & mask) {
        size_t home = home_slot(slots[j].handle, capacity);
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays) continue;
        slots[i] = slots[j];
        slots[j].handle = NULL;
        i = j;
    }
}

stenc_status stenc_handle_add(const void *handle, const stenc_handle_kind *kind, const char *fn) {
    pthread_mutex_lock(&registry_lock);
    stenc_status st = STENC_OK;
    if (find_slot(handle) != SIZE_MAX)
        st = STENC_ERROR(STENC_ERR_INTERNAL, "%s: new %s %p is registered already", fn, kind->name,
                         handle);
    else if (!reserve_one())
        st = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory to register the new %s", fn,
                         kind->name);
    else {
        place(slots, capacity, (handle_entry){handle, kind});
        live++;
    }
    pthread_mutex_unlock(&registry_lock);
    return st;
}

/* Look `handle` up and, when it is a live handle of `kind` and `erase` is set, forget it. */
static stenc_status lookup(const void *handle, const stenc_handle_kind *kind, const char *fn,
                           const char *what, int erase) {
    if (!handle) return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, what);
    pthread_mutex_lock(&registry_lock);
    size_t i = find_slot(handle);
    const stenc_handle_kind *found = i == SIZE_MAX ? NULL : slots[i].kind;
    if (found == kind && erase) {
        erase_slot(i);
        live--;
    }
    pthread_mutex_unlock(&registry_lock);
    if (!found)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "%s: %s (%p) is not a live %s: it was destroyed already, or never "
                           "created",
                           fn, what, handle, kind->name);
    if (found != kind)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: %s (%p) is a %s, not a %s", fn, what,
                           handle, found->name, kind->name);
    return STENC_OK;
}

stenc_status stenc_handle_check(const void *handle, const stenc_handle_kind *kind, const char *fn,
                                const char *what) {
    return lookup(handle, kind, fn, what, 0);
}

int stenc_handle_live(const void *handle, const stenc_handle_kind *kind) {
    pthread_mutex_lock(&registry_lock);
    size_t i = find_slot(handle);
    int live_kind = handle && i != SIZE_MAX && slots[i].kind == kind;
    pthread_mutex_unlock(&registry_lock);
    return live_kind;
}

stenc_status stenc_handle_remove(const void *handle, const stenc_handle_kind *kind, const char *fn,
                                 const char *what) {
    return lookup(handle, kind, fn, what, 1);
}
