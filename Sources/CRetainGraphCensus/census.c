// The interposed swift_allocObject, and the table of records it writes. Nothing else lives here.
#define _GNU_SOURCE
#include "CRetainGraphCensus.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef void *(*AllocObject)(const void *, size_t, size_t);

// In queued.c.
void rgc_queued_register_fork_handlers(void);

// Runtime entry points: the test executable links libswiftCore, so these resolve at load time.
extern void swift_unownedRetain(void *object);
extern void swift_unownedRelease(void *object);
extern void swift_nonatomic_unownedRetain(void *object);
extern void swift_nonatomic_unownedRelease(void *object);
extern bool swift_isDeallocating(void *object);
extern void swift_slowDealloc(void *memory, size_t size, size_t alignMask);

#define CHUNK_BITS 14
#define CHUNK_SLOTS ((uint64_t)1 << CHUNK_BITS)
#define DIRECTORY_SIZE ((uint64_t)1 << 20)
#define MAX_FRAMES 24
// Slots a thread reserves at a time (one atomic increment per BATCH allocations); divides
// CHUNK_SLOTS, so a batch never spans two chunks.
#define BATCH 64
// A slot that was recorded and then forgotten; an unwritten slot is null.
#define FORGOTTEN ((void *)1)
// A directory entry whose chunk the sweep freed; a chunk not created yet is null.
#define FREED_CHUNK ((Slot *)1)

typedef struct {
  _Atomic(void *) object;
  // The requested size in the low SIZE_BITS bits; the scope the object was allocated in above them
  // (0: none, or no scope was being read).
  uint64_t size;
  void **frames;  // malloc'd: [count, frame...] as words; null when not recorded
} Slot;

#define SIZE_BITS 40
#define SIZE_MASK ((UINT64_C(1) << SIZE_BITS) - 1)
#define SCOPE_MAX ((UINT64_C(1) << (64 - SIZE_BITS)) - 1)

// The task-local whose value is each allocation's scope (a `TaskLocal<UInt32>`'s address, the key
// the runtime looks values up by), or null when no scope is read. Set once, never cleared.
static _Atomic(const void *) scope_key;
// How many scoped runs are going: the slow path reads the scope only while one is.
static _Atomic int scoping;

// The runtime's task-local lookup (libswift_Concurrency), weak: a process without it reads no scope.
extern void *swift_task_localValueGet(const void *key) __attribute__((weak));

// The scope of the current task (or thread), read through the task-local `scope_key`: 0 when unset.
static uint64_t current_scope(void) {
  const void *key = atomic_load_explicit(&scope_key, memory_order_acquire);
  if (!key || !swift_task_localValueGet) return 0;
  const uint32_t *value = swift_task_localValueGet(key);
  return value ? (uint64_t)*value & SCOPE_MAX : 0;
}

static _Atomic(AllocObject) real_alloc;
static _Atomic int running;
static _Atomic int start_count;
// Whether the census was ever started in this process (a leak count before then looked at nothing).
static _Atomic int started_ever;
// How many of the starts not yet stopped asked for backtraces (each stop gives back its start's).
static _Atomic int backtraces;
// Whether a start ever asked for backtraces (so that some record may hold a call stack).
static _Atomic int backtraces_ever;
static _Atomic uint64_t next_index;
static _Atomic uint64_t dropped;
static _Atomic(_Atomic(Slot *) *) directory;
// Per chunk, how many of its slots were forgotten (each slot is forgotten once): the sweep frees a
// full chunk whose count is CHUNK_SLOTS without reading its slots. Made with the directory.
static _Atomic(_Atomic(uint32_t) *) forgotten_counts;
static _Atomic int census_lock;
// Set while this thread runs a census query: the query's own allocations are not recorded.
static _Thread_local int paused;
// Bumped by every mark (rgc_next_sequence): a thread's batch reserved before the current epoch is
// given up at its next allocation, so an allocation that happens after a mark is numbered after it.
static _Atomic uint64_t epoch;
// This thread's reserved slots [batch_next, batch_end), reserved in epoch batch_epoch; its batch
// began at batch_first (the slots before batch_next were written by this thread).
static _Thread_local uint64_t batch_first;
static _Thread_local uint64_t batch_next;
static _Thread_local uint64_t batch_end;
static _Thread_local uint64_t batch_epoch;
// The chunk of this thread's batch, once its first slot was written (null before): a chunk with
// unwritten slots of a batch is never freed.
static _Thread_local Slot *batch_slots;
static _Thread_local bool batch_exit_registered;
static pthread_key_t batch_exit_key;
static pthread_once_t batch_exit_once = PTHREAD_ONCE_INIT;
// Chunks in use when the last sweep ended (those it read and did not free): the allocation path
// sweeps once the chunks in use (`live_chunks`) are twice as many, and waits for the lock to sweep
// once they are BEHIND_FACTOR times as many (and at least BEHIND_MINIMUM).
static _Atomic uint64_t chunks_after_sweep = 1;
// Chunks created and not yet freed.
static _Atomic uint64_t live_chunks;
#define BEHIND_FACTOR 4
#define BEHIND_MINIMUM 16
// The first chunk that may still hold records (chunks before it were all forgotten and freed).
static _Atomic uint64_t first_chunk;

static AllocObject real(void) {
  AllocObject function = atomic_load_explicit(&real_alloc, memory_order_acquire);
  if (!function) {
    function = (AllocObject)dlsym(RTLD_NEXT, "swift_allocObject");
    atomic_store_explicit(&real_alloc, function, memory_order_release);
  }
  return function;
}

static _Atomic(Slot *) *get_directory(void) {
  _Atomic(Slot *) *table = atomic_load_explicit(&directory, memory_order_acquire);
  if (table) return table;
  if (!atomic_load_explicit(&forgotten_counts, memory_order_acquire)) {
    void *counts = mmap(NULL, DIRECTORY_SIZE * sizeof(uint32_t), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (counts == MAP_FAILED) return NULL;
    _Atomic(uint32_t) *none = NULL;
    if (!atomic_compare_exchange_strong(&forgotten_counts, &none, (_Atomic(uint32_t) *)counts)) {
      munmap(counts, DIRECTORY_SIZE * sizeof(uint32_t));
    }
  }
  void *fresh = mmap(NULL, DIRECTORY_SIZE * sizeof(void *), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (fresh == MAP_FAILED) return NULL;
  _Atomic(Slot *) *expected = NULL;
  if (!atomic_compare_exchange_strong(&directory, &expected, (_Atomic(Slot *) *)fresh)) {
    munmap(fresh, DIRECTORY_SIZE * sizeof(void *));
    return expected;
  }
  return (_Atomic(Slot *) *)fresh;
}

// Whether this thread holds the lock (an allocation it makes meanwhile must not wait for it).
static _Thread_local bool holds_lock;

static bool try_lock(void) {
  int expected = 0;
  bool taken = atomic_compare_exchange_strong(&census_lock, &expected, 1);
  if (taken) holds_lock = true;
  return taken;
}

// Set while a forking thread holds the lock (from its fork handler until the fork is done): an
// allocating thread that waits for the lock to sweep gives up then, because the forking thread may
// go on to wait for a lock that allocating thread holds (another fork handler's, taken after this
// one's). A fork that only waits for the lock does not stop the wait: whoever holds the lock then
// lets it go without taking another.
static _Atomic int fork_holds_lock;

static void pause_briefly(void) {
  struct timespec pause = {0, 20000};
  nanosleep(&pause, NULL);
}

// How many forking threads wait for the lock in their fork handler. A sweep lets the lock go
// between two chunks while one waits, so that a fork waits for one chunk's sweep (a fraction of a
// millisecond), not for a whole table's (seconds to minutes under load, which made forked walks
// beside a census time out before their child even existed).
static _Atomic int forks_waiting;

// With the lock held, between two chunks of a sweep: lets the lock go while a fork waits for it,
// and takes it again once every waiting fork has it or had it. A sweep may stop anywhere between
// chunks (each chunk is swept whole under the lock), and other threads may sweep meanwhile.
static void yield_to_forks(void) {
  rgc_unlock();
  while (atomic_load_explicit(&forks_waiting, memory_order_acquire) != 0) pause_briefly();
  rgc_lock();
}

void rgc_lock(void) {
  for (int spins = 0; !try_lock(); spins++) {
    if (spins < 16) {
      sched_yield();
    } else {
      pause_briefly();
    }
  }
}

void rgc_unlock(void) {
  holds_lock = false;
  atomic_store_explicit(&census_lock, 0, memory_order_release);
}

// Chunks the sweep freed, zeroed again and kept for the next chunks (under the lock): the table's
// memory is reused while still in cache instead of fresh pages from malloc.
#define SPARE_CHUNKS 4
static Slot *spare_chunks[SPARE_CHUNKS];
static int spare_count;

// With the lock held: keeps a freed chunk for reuse, or frees it.
static void retire_chunk(Slot *slots) {
  if (spare_count < SPARE_CHUNKS) {
    memset(slots, 0, CHUNK_SLOTS * sizeof(Slot));
    spare_chunks[spare_count++] = slots;
  } else {
    free(slots);
  }
}

// A zeroed chunk: a spare one if the lock is free (never wait on the allocation path), else new.
static Slot *new_chunk(void) {
  Slot *slots = NULL;
  if (try_lock()) {
    if (spare_count > 0) slots = spare_chunks[--spare_count];
    rgc_unlock();
  }
  return slots ? slots : calloc(CHUNK_SLOTS, sizeof(Slot));
}

// The chunk's slots, or null when it was not created yet or was freed (readers under the lock).
static Slot *chunk_slots(_Atomic(Slot *) *table, uint64_t chunk) {
  Slot *slots = atomic_load_explicit(&table[chunk], memory_order_acquire);
  return slots == FREED_CHUNK ? NULL : slots;
}

// The chunk of a slot this thread reserved and has not written: it exists, or is created now (a
// chunk with an unwritten slot is never freed, so its entry is never FREED_CHUNK here).
static Slot *get_chunk(_Atomic(Slot *) *table, uint64_t chunk, bool *created) {
  Slot *slots = atomic_load_explicit(&table[chunk], memory_order_acquire);
  if (slots) return slots;
  Slot *fresh = new_chunk();
  if (!fresh) return NULL;
  Slot *expected = NULL;
  if (!atomic_compare_exchange_strong(&table[chunk], &expected, fresh)) {
    free(fresh);
    return expected;
  }
  *created = true;
  atomic_fetch_add_explicit(&live_chunks, 1, memory_order_relaxed);
  return fresh;
}

// Counts `count` more forgotten slots in `chunk` (the directory exists: a slot was reserved).
static void count_forgotten(uint64_t chunk, uint32_t count) {
  if (count == 0) return;
  _Atomic(uint32_t) *counts = atomic_load_explicit(&forgotten_counts, memory_order_acquire);
  atomic_fetch_add_explicit(&counts[chunk], count, memory_order_release);
}

static void forget(Slot *slot, void *object) {
  atomic_store_explicit(&slot->object, FORGOTTEN, memory_order_relaxed);
  free(slot->frames);
  slot->frames = NULL;
  swift_unownedRelease(object);
}

// Whether the census's unowned count is the last thing that refers to a deallocating object, so
// that nothing else can change its counts any more: its counts are inline (the word after the
// metadata has bit 63 clear: no side table, so no weak reference was ever formed to it, RefCount.h),
// its deinit is over (the unowned count the strong references held was given back when its memory
// was released to us) and no other unowned reference exists (the census's own copies of records
// hold one too). Then its count can be given back without an atomic operation.
// The inline counts are read directly (RefCount.h, 64-bit: bit 0 pure-Swift dealloc, bits 1–31 the
// unowned count, bit 32 deiniting, bits 33–62 the strong extra count, bit 63 a side table).
static uint64_t count_bits(void *object) {
  return atomic_load_explicit((_Atomic uint64_t *)((char *)object + sizeof(void *)), memory_order_acquire);
}

static bool only_the_census_holds(void *object) {
  uint64_t bits = count_bits(object);
  return (bits >> 63) == 0 && ((bits >> 1) & 0x7fffffff) == 1;
}

// swift_isDeallocating without the call when the counts are inline.
static bool is_deallocating(void *object) {
  uint64_t bits = count_bits(object);
  if ((bits >> 63) == 0) return (bits >> 32) & 1;
  return swift_isDeallocating(object);
}

int rgc_is_deallocating(const void *object) { return is_deallocating((void *)object); }

// With the lock held: forgets a record whose object is deallocating (the sweep's case).
static void forget_dead(Slot *slot, void *object) {
  atomic_store_explicit(&slot->object, FORGOTTEN, memory_order_relaxed);
  if (slot->frames) {
    free(slot->frames);
    slot->frames = NULL;
  }
  if (only_the_census_holds(object)) {
    // Giving back the last count frees the memory (swift_nonatomic_unownedRelease would decrement
    // it to zero first, then call swift_slowDealloc, which is free() on Linux whatever the size
    // and alignment): nothing else can read the counts, so the decrement is skipped.
    swift_slowDealloc(object, slot->size & SIZE_MASK, ~(size_t)0);
  } else {
    swift_unownedRelease(object);
  }
}

// What a sweep does when a fork waits for the lock (checked between two chunks; each chunk is swept
// whole under the lock, so the table is consistent there).
typedef enum {
  // A query's sweep (its thread holds no other lock): let the lock go to the fork, take it again.
  SWEEP_YIELDING,
  // An allocating thread's sweep (it may hold a lock that another fork handler will wait for, so it
  // must not wait for the fork): stop; the next sweep goes on.
  SWEEP_ABANDONING,
} SweepOnFork;

// Tests: a pause after each chunk of this thread's sweeps (a sweep as long as a whole loaded table's),
// and how many such sweeps run.
static _Thread_local uint32_t sweep_chunk_delay;
static _Atomic int delayed_sweeps;

void rgc_test_delay_sweeps_on_this_thread(uint32_t microseconds) { sweep_chunk_delay = microseconds; }
int rgc_test_delayed_sweeps_running(void) { return atomic_load(&delayed_sweeps); }

// Tests: whether this thread's waits for the lock (back-pressure) are counted, and how many such
// waits are going on: a test orders its threads by the wait itself, not by a sleep.
static _Thread_local bool counts_waits;
static _Atomic int counted_waits;

void rgc_test_count_waits_on_this_thread(void) { counts_waits = true; }
int rgc_test_counted_waits(void) { return atomic_load(&counted_waits); }

static void sweep_table(SweepOnFork on_fork);
static bool forget_if_dead(Slot *slot);

// With the lock held: forgets dead records; frees chunks whose every slot was forgotten.
static void sweep(SweepOnFork on_fork) {
  bool delayed = sweep_chunk_delay != 0;
  if (delayed) atomic_fetch_add(&delayed_sweeps, 1);
  sweep_table(on_fork);
  if (delayed) atomic_fetch_sub(&delayed_sweeps, 1);
}

static void sweep_table(SweepOnFork on_fork) {
  _Atomic(Slot *) *table = atomic_load_explicit(&directory, memory_order_acquire);
  if (!table) return;
  uint64_t end = atomic_load_explicit(&next_index, memory_order_acquire);
  uint64_t chunks = (end + CHUNK_SLOTS - 1) >> CHUNK_BITS;
  if (chunks > DIRECTORY_SIZE) chunks = DIRECTORY_SIZE;
  uint64_t in_use = 0;
  bool all_freed_so_far = true;
  for (uint64_t chunk = first_chunk; chunk < chunks; chunk++) {
    if (atomic_load_explicit(&forks_waiting, memory_order_acquire) != 0) {
      if (on_fork == SWEEP_ABANDONING) return;
      yield_to_forks();
    }
    if (sweep_chunk_delay) usleep(sweep_chunk_delay);
    Slot *slots = atomic_load_explicit(&table[chunk], memory_order_acquire);
    if (slots == FREED_CHUNK) continue;
    if (!slots) {
      // Not created yet: a thread reserved slots in it (all of them, when the chunk is full) and
      // has not written its first one yet (it may be descheduled between the two). It will be
      // created and written, so first_chunk must not move past it.
      all_freed_so_far = false;
      continue;
    }
    bool chunk_done = ((chunk + 1) << CHUNK_BITS) <= end;
    bool all_forgotten = chunk_done;
    _Atomic(uint32_t) *counts = atomic_load_explicit(&forgotten_counts, memory_order_acquire);
    if (!chunk_done || atomic_load_explicit(&counts[chunk], memory_order_acquire) < CHUNK_SLOTS) {
      uint32_t forgotten = 0;
      // Slots past the table's end were not reserved yet: unwritten.
      uint64_t limit = chunk_done ? CHUNK_SLOTS : end - (chunk << CHUNK_BITS);
      for (uint64_t index = 0; index < limit; index++) {
        Slot *slot = &slots[index];
        void *object = atomic_load_explicit(&slot->object, memory_order_acquire);
        if (object == FORGOTTEN) continue;
        if (object == NULL || !is_deallocating(object)) {
          all_forgotten = false;
          continue;
        }
        forget_dead(slot, object);
        forgotten++;
      }
      count_forgotten(chunk, forgotten);
    }
    if (all_forgotten) {
      // Every slot of a full chunk is written and forgotten: no writer can touch it again.
      atomic_store_explicit(&table[chunk], FREED_CHUNK, memory_order_release);
      retire_chunk(slots);
      atomic_fetch_sub_explicit(&live_chunks, 1, memory_order_relaxed);
      // (Another sweep, run while this one let the lock go, may have moved it further.)
      if (all_freed_so_far && first_chunk < chunk + 1) first_chunk = chunk + 1;
    } else {
      all_freed_so_far = false;
      in_use++;
    }
  }
  atomic_store_explicit(&chunks_after_sweep, in_use < 1 ? 1 : in_use, memory_order_relaxed);
}

// With the lock held: forgets the dead among the records numbered in [from, to) only, and frees a
// chunk of that range once its count of forgotten slots says every slot is (the whole table's sweep
// trusts that count the same way). It neither reads nor moves what lies outside the range, and
// leaves `chunks_after_sweep` (the whole table's measure) alone. A stop's sweep: its cost follows the
// range, not the table.
static void sweep_slots(uint64_t from, uint64_t to, SweepOnFork on_fork) {
  _Atomic(Slot *) *table = atomic_load_explicit(&directory, memory_order_acquire);
  if (!table || from >= to) return;
  uint64_t end = atomic_load_explicit(&next_index, memory_order_acquire);
  if (to > end) to = end;
  uint64_t last = (to + CHUNK_SLOTS - 1) >> CHUNK_BITS;
  if (last > DIRECTORY_SIZE) last = DIRECTORY_SIZE;
  for (uint64_t chunk = from >> CHUNK_BITS; chunk < last; chunk++) {
    if (atomic_load_explicit(&forks_waiting, memory_order_acquire) != 0) {
      if (on_fork == SWEEP_ABANDONING) return;
      yield_to_forks();
    }
    if (sweep_chunk_delay) usleep(sweep_chunk_delay);
    Slot *slots = atomic_load_explicit(&table[chunk], memory_order_acquire);
    if (slots == NULL || slots == FREED_CHUNK) continue;
    uint64_t base = chunk << CHUNK_BITS;
    uint64_t low = from > base ? from - base : 0;
    uint64_t high = to < base + CHUNK_SLOTS ? to - base : CHUNK_SLOTS;
    uint32_t forgotten = 0;
    for (uint64_t index = low; index < high; index++) {
      if (forget_if_dead(&slots[index])) forgotten++;
    }
    count_forgotten(chunk, forgotten);
    _Atomic(uint32_t) *counts = atomic_load_explicit(&forgotten_counts, memory_order_acquire);
    bool chunk_done = base + CHUNK_SLOTS <= end;
    if (chunk_done && atomic_load_explicit(&counts[chunk], memory_order_acquire) >= CHUNK_SLOTS) {
      // Every slot of a full chunk is written and forgotten: no writer can touch it again.
      atomic_store_explicit(&table[chunk], FREED_CHUNK, memory_order_release);
      retire_chunk(slots);
      atomic_fetch_sub_explicit(&live_chunks, 1, memory_order_relaxed);
    }
  }
}

// Marks this thread's unused reserved slots forgotten (a chunk is freed once every slot is
// forgotten), giving up its batch.
static void give_up_batch(void) {
  uint64_t from = batch_next;
  uint64_t to = batch_end;
  batch_next = batch_end = 0;
  batch_slots = NULL;
  if (from >= to) return;
  uint64_t chunk = from >> CHUNK_BITS;
  _Atomic(Slot *) *table = get_directory();
  bool created = false;
  // The batch's first slot was used when it was reserved: its chunk exists and is not freed while
  // these slots are unwritten.
  Slot *slots = (table && chunk < DIRECTORY_SIZE) ? get_chunk(table, chunk, &created) : NULL;
  if (!slots) return;
  for (uint64_t index = from; index < to; index++) {
    atomic_store_explicit(&slots[index & (CHUNK_SLOTS - 1)].object, FORGOTTEN, memory_order_release);
  }
  count_forgotten(chunk, (uint32_t)(to - from));
}

// Up to SURVIVORS slots that were alive when this thread last swept its batch: looked at once more
// at its next sweep (an object often outlives its batch by a few allocations), so that a chunk's
// slots are usually all forgotten by their own threads and the table's sweep frees it unread.
#define SURVIVORS 8
static _Thread_local uint64_t survivors[SURVIVORS];
static _Thread_local int survivor_count;

// With the lock held: forgets the slot's object if it is dead; whether it did.
static bool forget_if_dead(Slot *slot) {
  void *object = atomic_load_explicit(&slot->object, memory_order_acquire);
  if (object == NULL || object == FORGOTTEN || !is_deallocating(object)) return false;
  forget_dead(slot, object);
  return true;
}

// Forgets the dead among the slots [from, to) that this thread wrote (one batch, so one chunk),
// giving their memory back to malloc while it is still warm, so that the next allocations reuse it:
// without this, every allocation would touch fresh memory until the global sweep; and looks again
// at the survivors of its previous sweep. It takes the lock only if it is free (a query or a copy
// of the records may be reading these slots; never wait on the allocation path); chunks are looked
// up under the lock (a sweep may have freed them).
static void sweep_own_batch(uint64_t from, uint64_t to) {
  if ((from >= to && survivor_count == 0) || !try_lock()) return;
  _Atomic(Slot *) *table = atomic_load_explicit(&directory, memory_order_acquire);
  int earlier = survivor_count;
  survivor_count = 0;
  if (table) {
    // The survivors' chunks may have been freed since (a sweep forgot them): looked up again.
    for (int survivor = 0; survivor < earlier; survivor++) {
      uint64_t index = survivors[survivor];
      Slot *slots = chunk_slots(table, index >> CHUNK_BITS);
      if (slots && forget_if_dead(&slots[index & (CHUNK_SLOTS - 1)])) count_forgotten(index >> CHUNK_BITS, 1);
    }
    uint64_t chunk = from >> CHUNK_BITS;
    Slot *slots = from < to && chunk < DIRECTORY_SIZE ? chunk_slots(table, chunk) : NULL;
    if (slots) {
      uint32_t forgotten = 0;
      for (uint64_t index = from; index < to; index++) {
        Slot *slot = &slots[index & (CHUNK_SLOTS - 1)];
        if (forget_if_dead(slot)) {
          forgotten++;
        } else if (survivor_count < SURVIVORS && atomic_load_explicit(&slot->object, memory_order_relaxed) != FORGOTTEN) {
          survivors[survivor_count++] = index;
        }
      }
      count_forgotten(chunk, forgotten);
    }
  }
  rgc_unlock();
}

static void give_up_batch_at_exit(void *unused) {
  (void)unused;
  uint64_t from = batch_first;
  uint64_t to = batch_next;
  give_up_batch();
  sweep_own_batch(from, to);
}

static void make_batch_exit_key(void) { pthread_key_create(&batch_exit_key, give_up_batch_at_exit); }

// The next slot for this thread: from its batch while the batch is of the current epoch, else from
// a new batch (one atomic increment).
static uint64_t next_slot(void) {
  uint64_t current = atomic_load_explicit(&epoch, memory_order_acquire);
  if (__builtin_expect(batch_next == batch_end || batch_epoch != current, 0)) {
    uint64_t used_from = batch_first;
    uint64_t used_to = batch_next;
    give_up_batch();
    sweep_own_batch(used_from, used_to);
    if (!batch_exit_registered) {
      // A thread that ends gives up its batch (a destructor runs only for a non-null value).
      pthread_once(&batch_exit_once, make_batch_exit_key);
      pthread_setspecific(batch_exit_key, (void *)1);
      batch_exit_registered = true;
    }
    batch_next = atomic_fetch_add_explicit(&next_index, BATCH, memory_order_acq_rel);
    batch_first = batch_next;
    batch_end = batch_next + BATCH;
    batch_epoch = current;
  }
  return batch_next++;
}

// The allocating call stack as a malloc'd [count, frame...], or null (out of line: its buffer
// stays off the common path's stack frame).
static __attribute__((noinline)) void **record_backtrace(void) {
  void *frames[MAX_FRAMES + 1];
  int count = backtrace(frames + 1, MAX_FRAMES);
  void **copy = malloc(sizeof(void *) * (size_t)(count + 1));
  if (copy) {
    memcpy(copy + 1, frames + 1, sizeof(void *) * (size_t)count);
    copy[0] = (void *)(uintptr_t)count;
  }
  return copy;
}

// The counts of an object swift_allocObject just made: no strong extra count, an unowned count of
// 1, the pure-Swift dealloc bit (RefCount.h's RefCountBits(0, 1)).
#define FRESH_COUNTS ((uint64_t)3)
// Whether adding 2 to fresh counts is what swift_nonatomic_unownedRetain does: checked on the
// first object recorded (0 unknown, 1 yes, -1 no: the runtime is always called).
static _Atomic int inline_retain_checked;

// Takes the census's unowned count on an object not yet returned by swift_allocObject (no other
// thread can touch its counts, so without an atomic operation): a plain add to fresh inline counts,
// once the runtime's own call was seen to do exactly that.
static void take_unowned_count(void *object) {
  uint64_t *counts = (uint64_t *)((char *)object + sizeof(void *));
  int checked = atomic_load_explicit(&inline_retain_checked, memory_order_relaxed);
  if (__builtin_expect(checked == 1, 1) && *counts == FRESH_COUNTS) {
    *counts = FRESH_COUNTS + 2;
    return;
  }
  uint64_t before = *counts;
  swift_nonatomic_unownedRetain(object);
  if (checked == 0 && before == FRESH_COUNTS) {
    atomic_store_explicit(&inline_retain_checked, *counts == FRESH_COUNTS + 2 ? 1 : -1, memory_order_relaxed);
  }
}

// Whether the chunks in use reached `factor` times those in use after the last sweep.
static bool grown(uint64_t factor, uint64_t minimum) {
  uint64_t live = atomic_load_explicit(&live_chunks, memory_order_relaxed);
  return live >= minimum && live >= factor * atomic_load_explicit(&chunks_after_sweep, memory_order_relaxed);
}

// After this thread made a chunk: sweeps when the chunks in use doubled since the last sweep
// (amortised O(1) per allocation) if the lock is free. Other threads that keep allocating while the
// lock is held (a query copying the records, another thread's sweep) would grow the table without
// bound, each sweep taking longer and letting more pile up meanwhile (issue 29.7: 7 GB behind five
// searches): once the table is BEHIND_FACTOR times its size after the last sweep, the thread waits
// for the lock and sweeps. Every lock holder runs C code that takes no other lock than malloc's, so
// the wait always ends; a forking thread that holds the lock (whose later fork handlers may wait for
// locks this thread holds) makes it give up instead.
static __attribute__((noinline)) void sweep_if_grown(void) {
  if (!grown(2, 1)) return;
  if (holds_lock) return;  // an allocation made while this thread holds the lock
  if (!try_lock()) {
    if (!grown(BEHIND_FACTOR, BEHIND_MINIMUM)) return;
    bool counted = counts_waits;
    if (counted) atomic_fetch_add(&counted_waits, 1);
    bool gave_up = false;
    while (!try_lock()) {
      if (atomic_load_explicit(&fork_holds_lock, memory_order_acquire)) {
        gave_up = true;
        break;
      }
      pause_briefly();
    }
    if (counted) atomic_fetch_sub(&counted_waits, 1);
    if (gave_up) return;
    // Another thread may have swept meanwhile.
    if (!grown(2, 1)) {
      rgc_unlock();
      return;
    }
  }
  sweep(SWEEP_ABANDONING);
  rgc_unlock();
}

// Every case of recording (a new batch, a new chunk, backtraces, counts that are not fresh).
static __attribute__((noinline)) void record_slow(void *object, size_t size) {
  uint64_t index = next_slot();
  Slot *slots = batch_slots;
  bool created = false;
  if (__builtin_expect(slots == NULL, 0)) {
    uint64_t chunk = index >> CHUNK_BITS;
    _Atomic(Slot *) *table = get_directory();
    slots = (table && chunk < DIRECTORY_SIZE) ? get_chunk(table, chunk, &created) : NULL;
    if (!slots) {
      atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
      return;
    }
    batch_slots = slots;
  }
  // Chunks are zeroed when made or kept for reuse, and each slot is written once: frames is null.
  Slot *slot = &slots[index & (CHUNK_SLOTS - 1)];
  slot->size = (uint64_t)size & SIZE_MASK;
  if (__builtin_expect(atomic_load_explicit(&scoping, memory_order_relaxed) != 0, 0)) {
    slot->size |= current_scope() << SIZE_BITS;
  }
  if (__builtin_expect(atomic_load_explicit(&backtraces, memory_order_relaxed) != 0, 0)) {
    slot->frames = record_backtrace();
  }
  take_unowned_count(object);
  atomic_store_explicit(&slot->object, object, memory_order_release);
  if (__builtin_expect(created, 0)) sweep_if_grown();
}

// The common case inline: a slot left in this thread's batch of the current epoch, whose chunk it
// already has, no backtraces, fresh counts.
static inline __attribute__((always_inline)) void record(void *object, size_t size) {
  Slot *slots = batch_slots;
  uint64_t index = batch_next;
  uint64_t *counts = (uint64_t *)((char *)object + sizeof(void *));
  if (__builtin_expect(slots != NULL && index != batch_end &&
                           batch_epoch == atomic_load_explicit(&epoch, memory_order_acquire) &&
                           atomic_load_explicit(&backtraces, memory_order_relaxed) == 0 &&
                           atomic_load_explicit(&scoping, memory_order_relaxed) == 0 &&
                           atomic_load_explicit(&inline_retain_checked, memory_order_relaxed) == 1 &&
                           *counts == FRESH_COUNTS,
                       1)) {
    batch_next = index + 1;
    Slot *slot = &slots[index & (CHUNK_SLOTS - 1)];
    slot->size = (uint64_t)size & SIZE_MASK;
    *counts = FRESH_COUNTS + 2;
    atomic_store_explicit(&slot->object, object, memory_order_release);
    return;
  }
  record_slow(object, size);
}

// Running: the runtime's allocation, then the record (out of line, so that the stopped path keeps
// no frame of its own).
static __attribute__((noinline)) void *allocate_and_record(AllocObject function, const void *metadata, size_t size,
                                                           size_t alignMask) {
  void *object = function(metadata, size, alignMask);
  if (object && !paused) record(object, size);
  return object;
}

void *swift_allocObject(const void *metadata, size_t size, size_t alignMask) {
  AllocObject function = atomic_load_explicit(&real_alloc, memory_order_relaxed);
  if (__builtin_expect(function == NULL, 0)) function = real();
  // Stopped: one flag check, then a tail call to the runtime's allocator.
  // Acquire (a plain load on x86-64): a thread that sees the census running also sees the epoch
  // its start moved, so it records from a batch of this run (sweep_after_run reads only those).
  if (__builtin_expect(!atomic_load_explicit(&running, memory_order_acquire), 1)) {
    return function(metadata, size, alignMask);
  }
  return allocate_and_record(function, metadata, size, alignMask);
}

void rgc_set_scope_key(const void *key) { atomic_store_explicit(&scope_key, key, memory_order_release); }
void rgc_begin_scoping(void) { atomic_fetch_add_explicit(&scoping, 1, memory_order_acq_rel); }
void rgc_end_scoping(void) { atomic_fetch_sub_explicit(&scoping, 1, memory_order_acq_rel); }
uint32_t rgc_largest_scope(void) { return (uint32_t)SCOPE_MAX; }
int rgc_can_read_scopes(void) { return swift_task_localValueGet != NULL; }

// The load address of the image that holds the census, looked up once (null until then).
static _Atomic(void *) census_image_base;

int rgc_in_census_image(const void *address) {
  void *own = atomic_load_explicit(&census_image_base, memory_order_acquire);
  Dl_info info;
  if (!own) {
    if (!dladdr((const void *)&rgc_start, &info)) return 0;
    own = info.dli_fbase;
    atomic_store_explicit(&census_image_base, own, memory_order_release);
  }
  return dladdr(address, &info) && info.dli_fbase == own;
}

// RETAIN_GRAPH_LEAKS=1: the census records from the process's start, with call stacks, and at exit
// the Swift side (RetainGraphCensus's LeaksAtExit) prints every leaked cycle; the process then exits
// with status 1 when it found one or could not count. Weak: a program without that Swift code (it
// does not link RetainGraphCensus's Swift half) reports nothing.
extern int32_t rgc_swift_report_leaks_at_exit(void) __attribute__((weak));

static void report_leaks_at_exit(void) {
  if (!rgc_swift_report_leaks_at_exit) return;
  int32_t found = rgc_swift_report_leaks_at_exit();
  if (found != 0) {
    fflush(NULL);
    _exit(1);
  }
}

// The census's Swift half registers the census with the testing assertions and traits (the
// `.heapCensus` and `.noLeakedCycles` traits of RetainGraphTesting start it through that
// registration, which links no census of its own). Weak, as the report at exit is.
extern void rgc_swift_register_census(void) __attribute__((weak));

__attribute__((constructor)) static void register_census(void) {
  if (rgc_swift_register_census) rgc_swift_register_census();
}

__attribute__((constructor)) static void start_from_environment(void) {
  const char *value = getenv("RETAIN_GRAPH_LEAKS");
  if (!value || strcmp(value, "1") != 0) return;
  rgc_start(1);
  atexit(report_leaks_at_exit);
}

void rgc_pause_this_thread(void) { paused++; }
void rgc_resume_this_thread(void) { paused--; }
int rgc_thread_is_paused(void) { return paused; }

// A fork (the isolated search's child, a snapshot's) happens with the table's lock free: the forking
// thread takes it first, so the child never inherits it held by another thread in the middle of a
// sweep or a copy (the child has only the forking thread, which releases it; the lock is a plain
// flag, with no owner to check).
static void lock_for_fork(void) {
  atomic_fetch_add_explicit(&forks_waiting, 1, memory_order_acq_rel);
  rgc_lock();
  atomic_fetch_sub_explicit(&forks_waiting, 1, memory_order_acq_rel);
  atomic_store_explicit(&fork_holds_lock, 1, memory_order_release);
}

static void unlock_after_fork(void) {
  atomic_store_explicit(&fork_holds_lock, 0, memory_order_release);
  rgc_unlock();
}

// The child (one thread: the one that forked) records nothing: what it allocates is not the
// parent's, and recording could call backtrace(), whose unwinder and dl_iterate_phdr take locks
// another thread of the parent may have held at the fork (the census's busy tests record
// backtraces on three threads while other tests fork).
static void unlock_in_child(void) {
  atomic_store_explicit(&fork_holds_lock, 0, memory_order_release);
  atomic_store_explicit(&forks_waiting, 0, memory_order_release);
  rgc_unlock();
  paused++;
}

static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;

static void install_fork_handlers(void) { pthread_atfork(lock_for_fork, unlock_after_fork, unlock_in_child); }

// The first allocation number of the census's current run (from the start that turned it on): a
// record written while it runs is numbered at least this, so the last stop sweeps from here only.
// Under the lock.
static uint64_t run_start;
// Where the next stop's sweep of older records begins (each stop sweeps the next OLDER_SLICE slots
// before run_start, or as many as its run wrote, wrapping around), so that stops alone, in turn,
// also forget old records that died while the census ran. Under the lock.
static uint64_t older_cursor;
#define OLDER_SLICE 1024

// With the lock held, at the last stop: forgets the dead among the records the run wrote (those
// numbered from run_start: objects allocated and freed while it ran), then among the next slice of
// older records. What it costs follows what the run allocated, not the table (issue 39.4: a whole
// table's sweep took 8.6 ms per stop in a long-lived process). Old records whose objects died
// outside the slice stay until their turn, the next query (every query sweeps the whole table first,
// so counts never see them) or the table's growth.
static void sweep_after_run(void) {
  uint64_t from = run_start;
  uint64_t end = atomic_load_explicit(&next_index, memory_order_acquire);
  sweep_slots(from, end, SWEEP_YIELDING);
  uint64_t floor = first_chunk << CHUNK_BITS;
  if (from <= floor) return;
  uint64_t slice = end - from > OLDER_SLICE ? end - from : OLDER_SLICE;
  if (older_cursor < floor || older_cursor >= from) older_cursor = floor;
  uint64_t to = from - older_cursor > slice ? older_cursor + slice : from;
  sweep_slots(older_cursor, to, SWEEP_YIELDING);
  older_cursor = to;
}

// Starts and stops change the counts and the running flag together under the table's lock: a start
// racing with the last stop on another thread cannot find the census running and then see the stop
// turn it off.
void rgc_start(int with_backtraces) {
  pthread_once(&fork_handlers_once, install_fork_handlers);
  rgc_queued_register_fork_handlers();
  real();
  get_directory();
  rgc_lock();
  if (with_backtraces) {
    atomic_fetch_add(&backtraces, 1);
    atomic_store(&backtraces_ever, 1);
  }
  if (atomic_fetch_add(&start_count, 1) == 0) {
    // The run's first number is read before the epoch moves: a thread that sees the new epoch (or
    // the running flag, stored after it) reserves its next batch after this read, so from at least
    // this number; batches reserved before are given up at their threads' next allocations.
    run_start = atomic_load(&next_index);
    atomic_fetch_add(&epoch, 1);
    atomic_store(&running, 1);
  }
  atomic_store(&started_ever, 1);
  rgc_unlock();
}

void rgc_stop(int with_backtraces) {
  rgc_lock();
  int previous = atomic_load(&start_count);
  if (previous > 0) {
    atomic_store(&start_count, previous - 1);
    // The stop gives back what its start took: backtraces stay on only while a start that asked
    // for them is not stopped.
    if (with_backtraces && atomic_load(&backtraces) > 0) atomic_fetch_sub(&backtraces, 1);
  }
  if (previous == 1) {
    atomic_store(&running, 0);
    // Forget the dead the run left now; the live stay recorded (for the next start) until a sweep
    // finds them dead or HeapCensus.reset() forgets them.
    bool delayed = sweep_chunk_delay != 0;
    if (delayed) atomic_fetch_add(&delayed_sweeps, 1);
    sweep_after_run();
    if (delayed) atomic_fetch_sub(&delayed_sweeps, 1);
  }
  rgc_unlock();
}

int rgc_is_running(void) { return atomic_load_explicit(&running, memory_order_relaxed); }

int rgc_has_started(void) { return atomic_load(&started_ever); }

int rgc_is_interposed(void) {
  void *found = dlsym(RTLD_DEFAULT, "swift_allocObject");
  return found == (void *)&swift_allocObject;
}

uint64_t rgc_next_sequence(void) {
  // Batches reserved before now are given up at their threads' next allocations: what is
  // allocated after this call (on this thread, or on one that learns of the call) gets a number
  // from a batch reserved after it, at least the one returned.
  atomic_fetch_add(&epoch, 1);
  return atomic_load(&next_index);
}
uint64_t rgc_dropped_count(void) { return atomic_load(&dropped); }

void rgc_chunk_counts(uint64_t *live, uint64_t *after_sweep, uint64_t *behind_factor, uint64_t *behind_minimum) {
  *live = atomic_load(&live_chunks);
  *after_sweep = atomic_load(&chunks_after_sweep);
  *behind_factor = BEHIND_FACTOR;
  *behind_minimum = BEHIND_MINIMUM;
}

size_t rgc_collect(uint64_t since, uint64_t before, rgc_record *buffer, size_t capacity, int sweep_first) {
  if (sweep_first) sweep(SWEEP_YIELDING);
  _Atomic(Slot *) *table = atomic_load_explicit(&directory, memory_order_acquire);
  if (!table) return 0;
  uint64_t end = atomic_load_explicit(&next_index, memory_order_acquire);
  if (before < end) end = before;
  size_t found = 0;
  uint64_t start_chunk = since >> CHUNK_BITS;
  if (start_chunk < first_chunk) start_chunk = first_chunk;
  for (uint64_t chunk = start_chunk; (chunk << CHUNK_BITS) < end && chunk < DIRECTORY_SIZE; chunk++) {
    Slot *slots = chunk_slots(table, chunk);
    if (!slots) continue;
    for (uint64_t index = 0; index < CHUNK_SLOTS; index++) {
      uint64_t sequence = (chunk << CHUNK_BITS) | index;
      if (sequence < since) continue;
      if (sequence >= end) break;
      void *object = atomic_load_explicit(&slots[index].object, memory_order_acquire);
      if (object == NULL || object == FORGOTTEN) continue;
      if (found < capacity && buffer) {
        rgc_record *out = &buffer[found];
        out->object = object;
        out->sequence = sequence;
        out->size = slots[index].size & SIZE_MASK;
        out->scope = (uint32_t)(slots[index].size >> SIZE_BITS);
        void **frames = slots[index].frames;
        out->frames = frames ? (void *const *)(frames + 1) : NULL;
        out->frameCount = frames ? (int32_t)(uintptr_t)frames[0] : 0;
      }
      found++;
    }
  }
  return found;
}

static rgc_record *copy_live(uint64_t since, uint64_t before, size_t *count, int hold);

rgc_record *rgc_copy_live(uint64_t since, uint64_t before, size_t *count) {
  return copy_live(since, before, count, 1);
}

rgc_record *rgc_copy_live_unheld(uint64_t since, uint64_t before, size_t *count) {
  return copy_live(since, before, count, 0);
}

static rgc_record *copy_live(uint64_t since, uint64_t before, size_t *count, int hold) {
  rgc_lock();
  size_t capacity = rgc_collect(since, before, NULL, 0, 1) + 256;
  rgc_record *buffer = NULL;
  size_t found = 0;
  while (true) {
    buffer = malloc(capacity * sizeof(rgc_record));
    if (!buffer) break;
    found = rgc_collect(since, before, buffer, capacity, 0);
    if (found <= capacity) break;
    // Records below `before` may still be being written by their allocating threads: a few more
    // may appear between the count and the copy.
    free(buffer);
    buffer = NULL;
    capacity = found + found / 4;
  }
  if (!buffer) found = 0;
  for (size_t index = 0; index < found; index++) {
    buffer[index].frames = NULL;
    buffer[index].frameCount = 0;
  }
  if (hold) rgc_hold_records(buffer, found);
  rgc_unlock();
  *count = found;
  return buffer;
}

int rgc_backtraces_ever_recorded(void) { return atomic_load(&backtraces_ever); }

size_t rgc_copy_frames(const void *object, void **frames, size_t capacity) {
  size_t copied = 0;
  rgc_lock();
  _Atomic(Slot *) *table = atomic_load_explicit(&directory, memory_order_acquire);
  uint64_t end = atomic_load_explicit(&next_index, memory_order_acquire);
  for (uint64_t chunk = first_chunk; table && (chunk << CHUNK_BITS) < end && chunk < DIRECTORY_SIZE; chunk++) {
    Slot *slots = chunk_slots(table, chunk);
    if (!slots) continue;
    uint64_t limit = ((chunk + 1) << CHUNK_BITS) <= end ? CHUNK_SLOTS : end - (chunk << CHUNK_BITS);
    for (uint64_t index = 0; index < limit; index++) {
      if (atomic_load_explicit(&slots[index].object, memory_order_acquire) != object) continue;
      void **recorded = slots[index].frames;
      if (recorded) {
        size_t count = (size_t)(uintptr_t)recorded[0];
        copied = count < capacity ? count : capacity;
        memcpy(frames, recorded + 1, copied * sizeof(void *));
      }
      rgc_unlock();
      return copied;
    }
  }
  rgc_unlock();
  return copied;
}

void rgc_forget_all(void) {
  _Atomic(Slot *) *table = atomic_load_explicit(&directory, memory_order_acquire);
  if (!table) return;
  uint64_t end = atomic_load_explicit(&next_index, memory_order_acquire);
  for (uint64_t chunk = first_chunk; (chunk << CHUNK_BITS) < end && chunk < DIRECTORY_SIZE; chunk++) {
    Slot *slots = chunk_slots(table, chunk);
    if (!slots) continue;
    uint32_t forgotten = 0;
    for (uint64_t index = 0; index < CHUNK_SLOTS; index++) {
      void *object = atomic_load_explicit(&slots[index].object, memory_order_acquire);
      if (object == NULL || object == FORGOTTEN) continue;
      forget(&slots[index], object);
      forgotten++;
    }
    count_forgotten(chunk, forgotten);
  }
  sweep(SWEEP_YIELDING);
}

void rgc_hold_records(const rgc_record *records, size_t count) {
  for (size_t index = 0; index < count; index++) swift_unownedRetain((void *)records[index].object);
}

void rgc_release_records(const rgc_record *records, size_t count) {
  for (size_t index = 0; index < count; index++) swift_unownedRelease((void *)records[index].object);
}
