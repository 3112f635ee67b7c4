/* Tables of distinct keys: KeyTable (keys -> ids) and OffsetTable (keys -> offsets), hash tables of key bytes. */
#include "kernels.h"
#ifdef __linux__
#include <sys/mman.h>
#endif

enum { READY, PENDING, BROKEN, BUSY };
#define MIN_SLOTS 1024
#define PREFETCH_ROWS 8

#define INLINE_KEY_BYTES 16

/* One slot of an open-addressing table (linear probing, at most three quarters full), 32 bytes: two to a cache line,
 * none across two. Value and the key's bytes (or, for keys longer than INLINE_KEY_BYTES, where they are in the arena
 * and their hash) sit together, so finding a short key costs one memory read of the table, a long one a read of the
 * arena too. A short key is found by its length and bytes, its hash worked out again when the table grows. The
 * slots were 48 bytes, every key's hash kept: the 50M-record tally's 5M keys took 384 MiB of tables, now 256 MiB
 * (the bench's peak RSS 657 -> 495 MiB; issue #41). */
typedef struct {
    int64_t value; /* KeyTable: the id; OffsetTable: the offset (or rank) */
    uint32_t order; /* how many keys the table held when this one was put first (items() keeps that order) */
    uint32_t stored; /* 0: an empty slot; else the key's length + 2 (1: the None key) */
    union {
        uint8_t bytes[INLINE_KEY_BYTES]; /* a key of at most INLINE_KEY_BYTES bytes */
        struct {
            int64_t at; /* a longer key: its first byte in the arena */
            uint64_t hash;
        } spilled;
    } key;
} Slot;

/* A short key (at most INLINE_KEY_BYTES) held back by stage_spans() until a sweep puts it in slot order, 32 bytes. Its
 * hash's top bits carry its slot's `stored` (length + 2, at most 18): a slot index takes at most the low 33 bits. */
typedef struct {
    uint64_t tagged; /* bits 0-58: the key's hash; bits 59-63: its length + 2 */
    int64_t value;
    uint8_t bytes[INLINE_KEY_BYTES];
} Held;

#define TAG_SHIFT 59
#define TAG_HASH(tagged) ((tagged) & ((1ULL << TAG_SHIFT) - 1))
/* Held keys are put in this many runs of neighbouring slots at most (a run of a 128 MiB table is 32 KiB, in the
 * core's own caches): a sweep's reads of the table go up, not all over it. */
#define SWEEP_RUN_BITS 12

/* Keys a table holds at most, and the longest key (slot fields of 32 bits; Kafka's keys are at most 2^31 - 1 bytes) */
#define MAX_KEYS ((Py_ssize_t)UINT32_MAX)
#define MAX_KEY_BYTES ((int64_t)UINT32_MAX - 2)

/* Both table types share this layout; only KeyTable stages keys (number() then commit()). */
typedef struct {
    PyObject_HEAD
    Slot *slots;
    Py_ssize_t slot_count; /* a power of two */
    Py_ssize_t count; /* keys held */
    char *arena;
    Py_ssize_t arena_used, arena_capacity;
    Py_ssize_t *staged; /* KeyTable: the slots of the keys new in the last number() call, in order */
    Py_ssize_t staged_count, staged_capacity;
    Held *held, *sorted; /* short keys staged and not put yet (stage_spans()); the same sorted by slot */
    Py_ssize_t held_count, held_capacity, sorted_capacity;
    int state; /* READY, PENDING (number() staged keys, commit() not called yet), BROKEN (an error mid-call) or BUSY
                * (put_spans() is filling it without the GIL) */
} Table;

/* A key as given: its bytes and length, -1 for None (any negative length). */
typedef struct {
    const uint8_t *bytes;
    int64_t length;
} Key;

/* The length of the key held in a slot, -1 for None. */
static inline int64_t
slot_length(const Slot *slot)
{
    return (int64_t)slot->stored - 2;
}

/* The bytes of the key held in a slot. */
static const uint8_t *
slot_key(const Table *table, const Slot *slot)
{
    return slot_length(slot) <= INLINE_KEY_BYTES ? slot->key.bytes : (const uint8_t *)table->arena + slot->key.spilled.at;
}

/* A key's hash: its bytes eight at a time, the last one to seven of them as one more word, read as the key's last
 * eight bytes shifted when it has eight or more (no call to memcpy for a variable length; on a little-endian
 * machine the same word as those bytes copied alone). */
static inline uint64_t
hash_key(Key key)
{
    int64_t length = key.length > 0 ? key.length : 0;
    uint64_t hash = 0x9E3779B97F4A7C15ULL ^ (uint64_t)length ^ (key.length < 0 ? 0x5555ULL : 0);
    int64_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, key.bytes + i, 8);
        hash = (hash ^ word) * 0xBF58476D1CE4E5B9ULL;
        hash ^= hash >> 31;
    }
    if (i < length) {
        uint64_t word = 0;
        if (length >= 8) {
            memcpy(&word, key.bytes + length - 8, 8);
            word >>= 8 * (8 - (length - i)); /* the bytes hashed already */
        }
        else
            memcpy(&word, key.bytes + i, (size_t)(length - i));
        hash = (hash ^ word) * 0x94D049BB133111EBULL;
        hash ^= hash >> 29;
    }
    hash *= 0xBF58476D1CE4E5B9ULL;
    return hash ^ (hash >> 32);
}

/* The hash of the key held in a slot: kept for a long key, worked out again for a short one. */
static uint64_t
slot_hash(const Table *table, const Slot *slot)
{
    if (slot_length(slot) > INLINE_KEY_BYTES)
        return slot->key.spilled.hash;
    Key key = {slot_key(table, slot), slot_length(slot)};
    return hash_key(key);
}

static int
grow(void **memory, Py_ssize_t *capacity, Py_ssize_t needed, size_t item)
{
    if (needed <= *capacity)
        return 1;
    Py_ssize_t size = *capacity ? *capacity : 1024;
    while (size < needed)
        size *= 2;
    void *moved = PyMem_Realloc(*memory, (size_t)size * item);
    if (moved == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    *memory = moved;
    *capacity = size;
    return 1;
}

/* Zeroed slots. On Linux a big table is mapped on its own, its pages faulted in by the mmap call
 * (MAP_POPULATE): the rehash and the inserts write every page of it anyway, and faulting them one at a time from
 * the rehash loop cost more than the rehash itself. Huge pages (MADV_HUGEPAGE, asked for here before) were dropped:
 * on the 2-core VM the bench runs on, faulting in a 384 MiB table of them took 0.9 s against 0.2 s for small pages,
 * while puts into the full table were at most a fifth faster (9.2M keys, 4.2M distinct, put in blocks of 77k into a
 * new table: 2.6 s with huge pages, 1.3 s populated; issue #41). */
static Slot *
new_slots(Py_ssize_t count)
{
#ifdef __linux__
    size_t bytes = (size_t)count * sizeof(Slot);
    if (bytes >= (2u << 20)) {
        void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        return memory == MAP_FAILED ? NULL : memory;
    }
#endif
    return PyMem_RawCalloc((size_t)count, sizeof(Slot)); /* the raw allocator: callable without the GIL */
}

static void
free_slots(Slot *slots, Py_ssize_t count)
{
#ifdef __linux__
    if ((size_t)count * sizeof(Slot) >= (2u << 20)) {
        munmap(slots, (size_t)count * sizeof(Slot));
        return;
    }
#endif
    PyMem_RawFree(slots);
}

static Py_ssize_t
home_slot(const Table *table, uint64_t hash)
{
    return (Py_ssize_t)(hash & (uint64_t)(table->slot_count - 1));
}

/* The slots `keys` keys need with the table at most three quarters full. */
static Py_ssize_t
slots_needed(Py_ssize_t keys)
{
    return keys + keys / 3 + 1;
}

/* Room in the slots for `more` keys: rehashes into a bigger table when needed. 0 when there is no room (too many
 * keys, or no memory), with no exception set: it runs without the GIL (the rehashes of the 50M tally's table took
 * about a quarter of a second, every other thread of the process waiting on the GIL meanwhile; issue #41). */
static int
grow_slots(Table *table, Py_ssize_t more)
{
    Py_ssize_t needed = slots_needed(table->count + more);
    if (needed <= table->slot_count)
        return 1;
    if (table->count + more > MAX_KEYS)
        return 0;
    Py_ssize_t size = table->slot_count ? table->slot_count : MIN_SLOTS;
    while (size < needed)
        size *= 2;
    Slot *slots = new_slots(size), *old = table->slots;
    if (slots == NULL)
        return 0;
    Py_ssize_t old_count = table->slot_count;
    table->slots = slots;
    table->slot_count = size;
    for (Py_ssize_t i = 0; i < old_count; i++) {
        if (!old[i].stored)
            continue;
        Py_ssize_t slot = home_slot(table, slot_hash(table, &old[i]));
        while (slots[slot].stored)
            slot = (slot + 1) & (size - 1);
        slots[slot] = old[i];
    }
    if (old != NULL)
        free_slots(old, old_count);
    return 1;
}

/* `done`, with MemoryError raised when it is 0 (the GIL held): what grow_slots() and flush_held() leave unsaid. */
static int
or_no_memory(int done)
{
    if (!done)
        PyErr_NoMemory();
    return done;
}

/* grow_slots() with the GIL held: 0 with MemoryError when there is no room. */
static int
reserve_slots(Table *table, Py_ssize_t more)
{
    return or_no_memory(grow_slots(table, more));
}

/* Room for `more` keys: in the slots, and for KeyTable's staged slots. */
static int
reserve(Table *table, Py_ssize_t more)
{
    return grow((void **)&table->staged, &table->staged_capacity, more, sizeof(Py_ssize_t)) && reserve_slots(table, more);
}

/* Whether a and b hold the same `length` bytes. Keys of 8 to 16 bytes (most keys) are compared as two words, the
 * first and last eight bytes, without a call to memcmp. */
static inline int
same_bytes(const uint8_t *a, const uint8_t *b, int64_t length)
{
    if (length < 8 || length > 16)
        return length <= 0 || memcmp(a, b, (size_t)length) == 0;
    uint64_t a_head, b_head, a_tail, b_tail;
    memcpy(&a_head, a, 8);
    memcpy(&b_head, b, 8);
    memcpy(&a_tail, a + length - 8, 8);
    memcpy(&b_tail, b + length - 8, 8);
    return a_head == b_head && a_tail == b_tail;
}

/* The slot holding the key (of at most MAX_KEY_BYTES bytes), or the empty slot where it belongs: a short key's
 * bytes are compared in the slot, a long key's hash first. */
static Slot *
find_slot(const Table *table, uint64_t hash, Key key)
{
    int64_t length = key.length < 0 ? -1 : key.length;
    uint32_t stored = (uint32_t)(length + 2);
    Py_ssize_t mask = table->slot_count - 1;
    for (Py_ssize_t slot = home_slot(table, hash);; slot = (slot + 1) & mask) {
        Slot *candidate = &table->slots[slot];
        if (!candidate->stored)
            return candidate;
        if (candidate->stored == stored && (length <= INLINE_KEY_BYTES || candidate->key.spilled.hash == hash)
            && same_bytes(slot_key(table, candidate), key.bytes, length))
            return candidate;
    }
}

/* The arena bytes a key takes: its own when it is not kept in its slot, else none. */
static Py_ssize_t
arena_bytes(int64_t length)
{
    return length > INLINE_KEY_BYTES ? (Py_ssize_t)length : 0;
}

/* Put the key into the empty slot found for it; its bytes are copied into the slot (short keys) or the arena. 0 with
 * MemoryError when the arena cannot grow; it does not grow (no call needing the GIL) when room for the key was
 * reserved. */
static int
insert(Table *table, Slot *slot, uint64_t hash, Key key, int64_t value)
{
    int64_t length = key.length < 0 ? -1 : key.length;
    Py_ssize_t bytes = arena_bytes(length);
    if (!grow((void **)&table->arena, &table->arena_capacity, table->arena_used + bytes, 1))
        return 0;
    slot->stored = (uint32_t)(length + 2);
    slot->order = (uint32_t)table->count;
    slot->value = value;
    if (length > INLINE_KEY_BYTES) {
        slot->key.spilled.at = table->arena_used;
        slot->key.spilled.hash = hash;
        memcpy(table->arena + table->arena_used, key.bytes, (size_t)length);
    }
    else if (length > 0)
        memcpy(slot->key.bytes, key.bytes, (size_t)length);
    table->arena_used += bytes;
    table->count++;
    return 1;
}

/* Put the key at `offset`, keeping the higher offset of a key already held. 0 (the table broken) with MemoryError
 * when its bytes cannot be copied. */
static int
put_max(Table *table, uint64_t hash, Key key, int64_t offset)
{
    Slot *slot = find_slot(table, hash, key);
    if (!slot->stored) {
        if (!insert(table, slot, hash, key, offset)) {
            table->state = BROKEN;
            return 0;
        }
    }
    else if (offset > slot->value)
        slot->value = offset;
    return 1;
}

/* Prefetch the home slot of a key PREFETCH_ROWS rows ahead, and the arena bytes of the key in the home slot of
 * one half as far ahead: the table and arena are far bigger than the caches, and a lookup would otherwise wait
 * on two memory reads in a row. Always inlined: GCC finds a function that only prefetches free of side effects
 * and deletes its calls (at -O1 and above no prefetch was left in the loops). */
static inline __attribute__((always_inline)) void
prefetch(const Table *table, const uint64_t *hashes, Py_ssize_t row, Py_ssize_t rows)
{
    if (row + PREFETCH_ROWS < rows)
        __builtin_prefetch(&table->slots[home_slot(table, hashes[row + PREFETCH_ROWS])]);
    if (row + PREFETCH_ROWS / 2 < rows) {
        const Slot *home = &table->slots[home_slot(table, hashes[row + PREFETCH_ROWS / 2])];
        if (slot_length(home) > INLINE_KEY_BYTES)
            __builtin_prefetch(table->arena + home->key.spilled.at);
    }
}

/* Held keys in the order of their slots' runs (SWEEP_RUN_BITS: the top bits of their home slots), from `from` to `to`:
 * one pass counting, one placing (a radix sort's, of one digit). */
static void
sort_held(const Held *from, Held *to, Py_ssize_t count, Py_ssize_t slot_count)
{
    Py_ssize_t runs[(Py_ssize_t)1 << SWEEP_RUN_BITS] = {0};
    int bits = 0;
    while (((Py_ssize_t)1 << bits) < slot_count)
        bits++;
    int shift = bits > SWEEP_RUN_BITS ? bits - SWEEP_RUN_BITS : 0;
    uint64_t mask = (uint64_t)slot_count - 1;
    for (Py_ssize_t i = 0; i < count; i++)
        runs[(from[i].tagged & mask) >> shift]++;
    Py_ssize_t at = 0;
    for (Py_ssize_t run = 0; run < ((Py_ssize_t)1 << SWEEP_RUN_BITS); run++) {
        Py_ssize_t size = runs[run];
        runs[run] = at;
        at += size;
    }
    for (Py_ssize_t i = 0; i < count; i++)
        to[runs[(from[i].tagged & mask) >> shift]++] = from[i];
}

/* Put held keys (sorted) in their order, each home slot prefetched PREFETCH_ROWS keys ahead. With `found_only`, a
 * key not in the table is not put but kept: moved to the front of `held`. Returns how many were kept. */
static Py_ssize_t
sweep_held(Table *table, Held *held, Py_ssize_t count, int found_only)
{
    Py_ssize_t kept = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        if (k + PREFETCH_ROWS < count)
            __builtin_prefetch(&table->slots[home_slot(table, TAG_HASH(held[k + PREFETCH_ROWS].tagged))]);
        uint64_t hash = TAG_HASH(held[k].tagged);
        Key key = {held[k].bytes, (int64_t)(held[k].tagged >> TAG_SHIFT) - 2};
        Slot *slot = find_slot(table, hash, key);
        if (slot->stored) {
            if (held[k].value > slot->value)
                slot->value = held[k].value;
        }
        else if (found_only)
            held[kept++] = held[k];
        else
            insert(table, slot, hash, key, held[k].value); /* a short key: no arena bytes, cannot fail */
    }
    return kept;
}

/* Put every held key, the table's reads in slot order, leaving room for `more` keys after them. When the held keys
 * might not all fit (were they all new), those already held are put first and the table grown for the rest only: a
 * table grows when its keys need it, as put_spans() grows it. Without the GIL; 0 (the table broken, no exception
 * set: see held_put()) when there is no room. */
static int
flush_held(Table *table, Py_ssize_t more)
{
    Py_ssize_t count = table->held_count;
    if (count == 0)
        return 1;
    table->held_count = 0;
    sort_held(table->held, table->sorted, count, table->slot_count);
    if (slots_needed(table->count + count + more) <= table->slot_count) {
        sweep_held(table, table->sorted, count, 0);
        return 1;
    }
    Py_ssize_t fresh = sweep_held(table, table->sorted, count, 1);
    Py_ssize_t slot_count = table->slot_count;
    if (!grow_slots(table, fresh + more)) {
        table->state = BROKEN;
        return 0;
    }
    if (table->slot_count != slot_count) { /* the slots moved: sorted again for the new table */
        sort_held(table->sorted, table->held, fresh, table->slot_count);
        sweep_held(table, table->held, fresh, 0);
    }
    else
        sweep_held(table, table->sorted, fresh, 0);
    return 1;
}

/* flush_held() with the GIL held: 0 with MemoryError when there is no room. */
static int
held_put(Table *table, Py_ssize_t more)
{
    return or_no_memory(flush_held(table, more));
}

/* Keys given as spans of a block: the buffers of number(), put_spans() and get_spans(), checked. */
typedef struct {
    Py_buffer block, starts, lengths;
    Py_ssize_t rows;
    uint64_t *hashes;
    Py_ssize_t arena_bytes; /* what the keys would take of the arena were they all new */
} Spans;

static void
release_spans(Spans *spans)
{
    PyMem_Free(spans->hashes);
    PyBuffer_Release(&spans->block);
    PyBuffer_Release(&spans->starts);
    PyBuffer_Release(&spans->lengths);
}

static Key
span_key(const Spans *spans, Py_ssize_t i)
{
    const int64_t *starts = spans->starts.buf, *lengths = spans->lengths.buf;
    Key key = {(const uint8_t *)spans->block.buf, lengths[i] < 0 ? -1 : lengths[i]};
    if (key.length > 0)
        key.bytes += starts[i];
    return key;
}

/* Hash every key (checked spans). */
static void
hash_rows(Spans *spans)
{
    for (Py_ssize_t i = 0; i < spans->rows; i++)
        spans->hashes[i] = hash_key(span_key(spans, i));
}

/* Checks every span lies in the block, sums the arena bytes of the keys and makes room for their hashes; 0 with an
 * exception otherwise. */
static int
check_spans(Spans *spans)
{
    spans->rows = spans->starts.len / 8;
    if (!check_buffer(&spans->starts, spans->rows, 8, "starts")
        || !check_buffer(&spans->lengths, spans->rows, 8, "lengths"))
        return 0;
    spans->hashes = PyMem_Malloc((size_t)(spans->rows ? spans->rows : 1) * sizeof(uint64_t));
    if (spans->hashes == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    const int64_t *starts = spans->starts.buf, *lengths = spans->lengths.buf;
    for (Py_ssize_t i = 0; i < spans->rows; i++) {
        if (lengths[i] > 0 && (starts[i] < 0 || starts[i] > spans->block.len - lengths[i])) {
            PyErr_Format(PyExc_ValueError, "key %zd lies outside the block", i);
            return 0;
        }
        if (lengths[i] > MAX_KEY_BYTES) {
            PyErr_Format(PyExc_ValueError, "key %zd is longer than %lld bytes", i, (long long)MAX_KEY_BYTES);
            return 0;
        }
        spans->arena_bytes += arena_bytes(lengths[i] < 0 ? -1 : lengths[i]);
    }
    return 1;
}

/* check_spans(), then hash_rows(). */
static int
hash_spans(Spans *spans)
{
    if (!check_spans(spans))
        return 0;
    hash_rows(spans);
    return 1;
}

/* READY, the keys stage_spans() held put first; else 0 with an exception. */
static int
refuse_unless_ready(Table *self)
{
    if (self->state == READY)
        return held_put(self, 0);
    PyErr_SetString(PyExc_RuntimeError, self->state == PENDING ? "the keys of the last number() call were not committed"
                                        : self->state == BUSY  ? "another thread is putting keys into this table"
                                                               : "this table failed in an earlier call: start a new one");
    return 0;
}

PyDoc_STRVAR(number_doc,
"number(block, starts, lengths, ids, new_rows) -> int\n"
"--\n\n"
"The id of each key block[starts[i]:starts[i] + lengths[i]] (a negative length: None) into ids, all int64\n"
"arrays. Keys met before get their committed id; the k-th key new to the table gets -2 - k, and its first row\n"
"goes to new_rows[k]. Returns how many keys were new; commit() must give them their ids before the next call.");

static PyObject *
KeyTable_number(Table *self, PyObject *args)
{
    Spans spans = {0};
    Py_buffer ids_view = {0}, new_view = {0};
    PyObject *result = NULL;
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*:number", &spans.block, &spans.starts, &spans.lengths, &ids_view,
                          &new_view))
        return NULL;
    if (!hash_spans(&spans) || !check_buffer(&ids_view, spans.rows, 8, "ids")
        || !check_buffer(&new_view, spans.rows, 8, "new_rows") || !reserve(self, spans.rows))
        goto done;
    int64_t *ids = ids_view.buf, *new_rows = new_view.buf;
    self->staged_count = 0;
    for (Py_ssize_t i = 0; i < spans.rows; i++) {
        prefetch(self, spans.hashes, i, spans.rows);
        Key key = span_key(&spans, i);
        Slot *slot = find_slot(self, spans.hashes[i], key);
        if (!slot->stored) {
            if (!insert(self, slot, spans.hashes[i], key, -2 - (int64_t)self->staged_count)) {
                self->state = BROKEN; /* keys staged so far have no ids: the table cannot be used again */
                goto done;
            }
            new_rows[self->staged_count] = i;
            self->staged[self->staged_count++] = slot - self->slots;
        }
        ids[i] = slot->value;
    }
    self->state = self->staged_count ? PENDING : READY;
    result = PyLong_FromSsize_t(self->staged_count);
done:
    release_spans(&spans);
    PyBuffer_Release(&ids_view);
    PyBuffer_Release(&new_view);
    return result;
}

PyDoc_STRVAR(commit_doc,
"commit(ids)\n"
"--\n\n"
"Give the keys new in the last number() call their ids (int64, in the order of new_rows).");

static PyObject *
KeyTable_commit(Table *self, PyObject *arg)
{
    Py_buffer view;
    if (self->state != PENDING) {
        PyErr_SetString(PyExc_RuntimeError, "no keys await their ids: call number() first");
        return NULL;
    }
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (!check_buffer(&view, self->staged_count, 8, "ids")) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const int64_t *ids = view.buf;
    for (Py_ssize_t k = 0; k < self->staged_count; k++)
        self->slots[self->staged[k]].value = ids[k];
    self->staged_count = 0;
    self->state = READY;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(put_spans_doc,
"put_spans(block, starts, lengths, offsets)\n"
"--\n\n"
"Put each key block[starts[i]:starts[i] + lengths[i]] (a negative length: None) at offsets[i] (int64 arrays),\n"
"keeping the higher offset of a key already held. The keys are put without the GIL (the table and arena grown\n"
"first): other threads run meanwhile; the table refuses other calls until it is done.");

static PyObject *
OffsetTable_put_spans(Table *self, PyObject *args)
{
    Spans spans = {0};
    Py_buffer offsets_view = {0};
    PyObject *result = NULL;
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*:put_spans", &spans.block, &spans.starts, &spans.lengths, &offsets_view))
        return NULL;
    if (!check_spans(&spans) || !check_buffer(&offsets_view, spans.rows, 8, "offsets") || !reserve(self, spans.rows)
        || !grow((void **)&self->arena, &self->arena_capacity, self->arena_used + spans.arena_bytes, 1))
        goto done;
    const int64_t *offsets = offsets_view.buf;
    self->state = BUSY;
    Py_BEGIN_ALLOW_THREADS
    hash_rows(&spans);
    for (Py_ssize_t i = 0; i < spans.rows; i++) {
        prefetch(self, spans.hashes, i, spans.rows);
        /* cannot fail: the arena has room */
        put_max(self, spans.hashes[i], span_key(&spans, i), offsets[i]);
    }
    Py_END_ALLOW_THREADS
    self->state = READY;
    result = Py_NewRef(Py_None);
done:
    release_spans(&spans);
    PyBuffer_Release(&offsets_view);
    return result;
}

#define HOLD_KEYS ((Py_ssize_t)3 << 16)
#define KEY_PREFETCH_ROWS 16

PyDoc_STRVAR(stage_spans_doc,
"stage_spans(block, starts, lengths, offsets, hold=196608)\n"
"--\n\n"
"put_spans(), the short keys (at most 16 bytes) held back (copied) until `hold` of them are, then put in the order\n"
"of their slots: the table's reads go up through it, not all over it. Every other call puts the held keys first;\n"
"flush() puts them without the GIL. Entries end as put_spans() leaves them; items() keeps the order keys were first\n"
"put only among keys put by other calls (a sweep puts its new keys in slot order).");

/* Makes room (with the GIL) for the keys of `spans`: at most `hold` held (none held beyond) and the arena for the
 * long ones; stage_rows() makes room in the slots. */
static int
stage_room(Table *self, const Spans *spans, Py_ssize_t hold)
{
    if (hold < 1) {
        PyErr_Format(PyExc_ValueError, "hold must be at least 1, not %zd", hold);
        return 0;
    }
    Py_ssize_t wanted = self->held_count + spans->rows < hold ? self->held_count + spans->rows : hold;
    if (self->held_count > wanted && !held_put(self, 0))
        return 0;
    return grow((void **)&self->held, &self->held_capacity, wanted, sizeof(Held))
        && grow((void **)&self->sorted, &self->sorted_capacity, self->held_capacity, sizeof(Held))
        && grow((void **)&self->arena, &self->arena_capacity, self->arena_used + spans->arena_bytes, 1);
}

/* The keys of `spans`: short ones held (the held ones put each time `limit` are), long ones put, the slots grown
 * first for all of them (as put_spans() reserves). Without the GIL; 0 (the table broken, no exception set) when
 * there is no room. */
static int
stage_rows(Table *self, Spans *spans, const int64_t *offsets, Py_ssize_t limit)
{
    if (!grow_slots(self, spans->rows)) {
        self->state = BROKEN;
        return 0;
    }
    const int64_t *starts = spans->starts.buf;
    for (Py_ssize_t i = 0; i < spans->rows; i++) {
        /* the keys lie apart in the block (a record's value between two), each read from memory: asked for ahead */
        if (i + KEY_PREFETCH_ROWS < spans->rows)
            __builtin_prefetch((const uint8_t *)spans->block.buf + starts[i + KEY_PREFETCH_ROWS]);
        Key key = span_key(spans, i);
        uint64_t hash = hash_key(key);
        if (key.length > INLINE_KEY_BYTES) {
            put_max(self, hash, key, offsets[i]); /* cannot fail: the arena and slots have room */
            continue;
        }
        if (self->held_count == limit && !flush_held(self, spans->rows - i))
            return 0;
        Held *held = &self->held[self->held_count++];
        held->tagged = TAG_HASH(hash) | ((uint64_t)(key.length + 2) << TAG_SHIFT);
        held->value = offsets[i];
        memset(held->bytes, 0, INLINE_KEY_BYTES);
        if (key.length > 0)
            memcpy(held->bytes, key.bytes, (size_t)key.length);
    }
    return 1;
}

static PyObject *
OffsetTable_stage_spans(Table *self, PyObject *args)
{
    Spans spans = {0};
    Py_buffer offsets_view = {0};
    PyObject *result = NULL;
    if (self->state != READY && !refuse_unless_ready(self)) /* the keys held stay held */
        return NULL;
    Py_ssize_t hold = HOLD_KEYS;
    if (!PyArg_ParseTuple(args, "y*y*y*y*|n:stage_spans", &spans.block, &spans.starts, &spans.lengths, &offsets_view,
                          &hold))
        return NULL;
    if (!check_spans(&spans) || !check_buffer(&offsets_view, spans.rows, 8, "offsets")
        || !stage_room(self, &spans, hold))
        goto done;
    Py_ssize_t limit = hold < self->held_capacity ? hold : self->held_capacity;
    self->state = BUSY;
    int staged;
    Py_BEGIN_ALLOW_THREADS
    staged = stage_rows(self, &spans, offsets_view.buf, limit);
    Py_END_ALLOW_THREADS
    if (staged) {
        self->state = READY;
        result = Py_NewRef(Py_None);
    }
    else
        PyErr_NoMemory();
done:
    release_spans(&spans);
    PyBuffer_Release(&offsets_view);
    return result;
}

PyDoc_STRVAR(flush_doc,
"flush()\n"
"--\n\n"
"Put the keys stage_spans() held, without the GIL.");

static PyObject *
OffsetTable_flush(Table *self, PyObject *Py_UNUSED(ignored))
{
    if (self->state != READY)
        return refuse_unless_ready(self) ? Py_NewRef(Py_None) : NULL;
    self->state = BUSY;
    int flushed;
    Py_BEGIN_ALLOW_THREADS
    flushed = flush_held(self, 0);
    Py_END_ALLOW_THREADS
    if (!flushed)
        return PyErr_NoMemory();
    self->state = READY;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(get_spans_doc,
"get_spans(block, starts, lengths, entries)\n"
"--\n\n"
"The offset held for each key block[starts[i]:starts[i] + lengths[i]] into entries (int64), -1 where none is.");

static PyObject *
OffsetTable_get_spans(Table *self, PyObject *args)
{
    Spans spans = {0};
    Py_buffer entries_view = {0};
    PyObject *result = NULL;
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*w*:get_spans", &spans.block, &spans.starts, &spans.lengths, &entries_view))
        return NULL;
    if (!hash_spans(&spans) || !check_buffer(&entries_view, spans.rows, 8, "entries"))
        goto done;
    int64_t *entries = entries_view.buf;
    for (Py_ssize_t i = 0; i < spans.rows; i++) {
        prefetch(self, spans.hashes, i, spans.rows);
        Slot *slot = find_slot(self, spans.hashes[i], span_key(&spans, i));
        entries[i] = slot->stored ? slot->value : -1;
    }
    result = Py_NewRef(Py_None);
done:
    release_spans(&spans);
    PyBuffer_Release(&entries_view);
    return result;
}

/* The key of a Python object: bytes, or None. 0 with TypeError otherwise. */
static int
object_key(PyObject *item, Key *key)
{
    const char *data;
    Py_ssize_t length;
    if (!bytes_of(item, &data, &length))
        return 0;
    if (length > MAX_KEY_BYTES) {
        PyErr_Format(PyExc_ValueError, "a key is longer than %lld bytes", (long long)MAX_KEY_BYTES);
        return 0;
    }
    key->bytes = (const uint8_t *)data;
    key->length = length;
    return 1;
}

PyDoc_STRVAR(put_doc,
"put(keys, offsets)\n"
"--\n\n"
"Put each key of the sequence keys (bytes or None) at offsets[i] (an int64 buffer), keeping the higher offset\n"
"of a key already held.");

static PyObject *
OffsetTable_put(Table *self, PyObject *args)
{
    PyObject *keys_arg, *keys = NULL, *result = NULL;
    Py_buffer offsets_view = {0};
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "Oy*:put", &keys_arg, &offsets_view))
        return NULL;
    keys = PySequence_Fast(keys_arg, "keys must be a sequence");
    if (keys == NULL || !check_buffer(&offsets_view, PySequence_Fast_GET_SIZE(keys), 8, "offsets")
        || !reserve(self, PySequence_Fast_GET_SIZE(keys)))
        goto done;
    const int64_t *offsets = offsets_view.buf;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(keys); i++) {
        Key key;
        if (!object_key(PySequence_Fast_GET_ITEM(keys, i), &key))
            goto done;
        if (!put_max(self, hash_key(key), key, offsets[i]))
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(keys);
    PyBuffer_Release(&offsets_view);
    return result;
}

PyDoc_STRVAR(get_doc,
"get(keys, entries)\n"
"--\n\n"
"The offset held for each key of the sequence keys (bytes or None) into entries (int64), -1 where none is.");

static PyObject *
OffsetTable_get(Table *self, PyObject *args)
{
    PyObject *keys_arg, *keys = NULL, *result = NULL;
    Py_buffer entries_view = {0};
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "Ow*:get", &keys_arg, &entries_view))
        return NULL;
    keys = PySequence_Fast(keys_arg, "keys must be a sequence");
    if (keys == NULL || !check_buffer(&entries_view, PySequence_Fast_GET_SIZE(keys), 8, "entries"))
        goto done;
    int64_t *entries = entries_view.buf;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(keys); i++) {
        Key key;
        if (!object_key(PySequence_Fast_GET_ITEM(keys, i), &key))
            goto done;
        Slot *slot = find_slot(self, hash_key(key), key);
        entries[i] = slot->stored ? slot->value : -1;
    }
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(keys);
    PyBuffer_Release(&entries_view);
    return result;
}

static int
by_order(const void *left, const void *right)
{
    uint32_t a = (*(Slot *const *)left)->order, b = (*(Slot *const *)right)->order;
    return (a > b) - (a < b);
}

PyDoc_STRVAR(items_doc,
"items() -> list\n"
"--\n\n"
"(key, offset) of every key held, in the order the keys were first put.");

static PyObject *
OffsetTable_items(Table *self, PyObject *Py_UNUSED(ignored))
{
    if (!refuse_unless_ready(self))
        return NULL;
    Slot **held = PyMem_Malloc((size_t)(self->count ? self->count : 1) * sizeof(Slot *));
    if (held == NULL)
        return PyErr_NoMemory();
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < self->slot_count; i++)
        if (self->slots[i].stored)
            held[n++] = &self->slots[i];
    qsort(held, (size_t)n, sizeof(Slot *), by_order);
    PyObject *items = PyList_New(n);
    for (Py_ssize_t i = 0; items != NULL && i < n; i++) {
        int64_t length = slot_length(held[i]);
        PyObject *key = length < 0 ? Py_NewRef(Py_None)
                                   : PyBytes_FromStringAndSize((const char *)slot_key(self, held[i]), (Py_ssize_t)length);
        PyObject *item = key ? Py_BuildValue("(NL)", key, (long long)held[i]->value) : NULL;
        if (item == NULL) {
            Py_CLEAR(items);
            break;
        }
        PyList_SET_ITEM(items, i, item);
    }
    PyMem_Free(held);
    return items;
}

PyDoc_STRVAR(values_doc,
"values(out)\n"
"--\n\n"
"The offset (or entry) held for every key into out (int64, len() items), in no particular order.");

static PyObject *
OffsetTable_values(Table *self, PyObject *arg)
{
    Py_buffer view;
    if (!refuse_unless_ready(self))
        return NULL;
    if (PyObject_GetBuffer(arg, &view, PyBUF_WRITABLE) < 0)
        return NULL;
    if (!check_buffer(&view, self->count, 8, "out")) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int64_t *out = view.buf;
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < self->slot_count; i++)
        if (self->slots[i].stored)
            out[n++] = self->slots[i].value;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static Py_ssize_t
Table_len(Table *self)
{
    if (self->held_count && !refuse_unless_ready(self))
        return -1;
    return self->count;
}

static void
Table_dealloc(Table *self)
{
    if (self->slots != NULL)
        free_slots(self->slots, self->slot_count);
    PyMem_Free(self->arena);
    PyMem_Free(self->staged);
    PyMem_Free(self->held);
    PyMem_Free(self->sorted);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    if (!PyArg_ParseTuple(args, "") || (kwargs && PyDict_Size(kwargs))) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "%s() takes no arguments", type->tp_name);
        return NULL;
    }
    Table *self = (Table *)type->tp_alloc(type, 0);
    if (self != NULL && !reserve(self, MIN_SLOTS / 2)) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static PySequenceMethods Table_as_sequence = {.sq_length = (lenfunc)Table_len};

static PyMethodDef KeyTable_methods[] = {
    {"number", (PyCFunction)KeyTable_number, METH_VARARGS, number_doc},
    {"commit", (PyCFunction)KeyTable_commit, METH_O, commit_doc},
    {NULL, NULL, 0, NULL},
};

PyTypeObject KeyTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kcompact_nb.record._native.KeyTable",
    .tp_doc = PyDoc_STR("Distinct keys by content (copied into an arena), each with an id; len() counts them."),
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Table_new,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = KeyTable_methods,
    .tp_as_sequence = &Table_as_sequence,
};

static PyMethodDef OffsetTable_methods[] = {
    {"put_spans", (PyCFunction)OffsetTable_put_spans, METH_VARARGS, put_spans_doc},
    {"stage_spans", (PyCFunction)OffsetTable_stage_spans, METH_VARARGS, stage_spans_doc},
    {"flush", (PyCFunction)OffsetTable_flush, METH_NOARGS, flush_doc},
    {"get_spans", (PyCFunction)OffsetTable_get_spans, METH_VARARGS, get_spans_doc},
    {"put", (PyCFunction)OffsetTable_put, METH_VARARGS, put_doc},
    {"get", (PyCFunction)OffsetTable_get, METH_VARARGS, get_doc},
    {"items", (PyCFunction)OffsetTable_items, METH_NOARGS, items_doc},
    {"values", (PyCFunction)OffsetTable_values, METH_O, values_doc},
    {NULL, NULL, 0, NULL},
};

PyTypeObject OffsetTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kcompact_nb.record._native.OffsetTable",
    .tp_doc = PyDoc_STR("Distinct keys by content (copied into an arena), each with its highest offset put: the "
                        "cleaner's offset map as a hash table of key bytes; len() counts the keys."),
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Table_new,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = OffsetTable_methods,
    .tp_as_sequence = &Table_as_sequence,
};

