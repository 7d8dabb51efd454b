# gdb/fthr_printers.py: gdb pretty-printers for fthr's objects.
#
# In a process (or core) that runs fthr, `print m` on a pthread_mutex_t,
# pthread_cond_t, pthread_rwlock_t, sem_t or pthread_barrier_t shows the
# object as fthr keeps it: kind, state, owner tid (and gdb's thread number),
# waiters and sleepers, readers. The words are read from the object's
# memory; their meaning is the head comment of each lib/thr_*.c. Objects
# that fthr hands to the host C library (process-shared condition
# variables, rwlocks and barriers) are shown in glibc's layout. Without
# libfthr in the inferior the printers stand aside.
#
# Installed as gdb auto-load script beside the library
# ($datadir/gdb/auto-load$libdir/libfthr.so.*-gdb.py) and as
# $pkgdatadir/fthr_printers.py for `source`.

import struct

import gdb

FUTEX_WAITERS = 0x80000000
FUTEX_OWNER_DIED = 0x40000000
FUTEX_TID_MASK = 0x3FFFFFFF
NOTRECOVERABLE = 0x7FFFFFFF  # __owner of a robust mutex nobody may take
KIND_NAMES = {0: "normal", 1: "recursive", 2: "errorcheck", 3: "adaptive"}
ROBUST, PRIO_INHERIT, PRIO_PROTECT, PSHARED = 16, 32, 64, 128
CLOCKS = {0: "CLOCK_REALTIME", 1: "CLOCK_MONOTONIC"}
RW_KINDS = {0: "prefer readers", 1: "prefer writers",
            2: "prefer writers, non-recursive"}
RW_WRITER, RW_WR_WAIT, RW_RD_WAIT, RW_READERS = 0x80000000, 0x40000000, 0x20000000, 0x1FFFFFFF
RW_BIAS = {0: "off", 1: "on", 2: "revoked"}


def fthr_loaded():
    for o in gdb.objfiles():
        if o.filename and "libfthr.so" in o.filename:
            return True
    return False


def raw(val, size):
    """The object's bytes, from the inferior's memory."""
    if val.address is None:
        raise gdb.error("the object is not in memory")
    return bytes(gdb.selected_inferior().read_memory(int(val.address), size))


def words(b, fmt):
    """Unpack the inferior's words (its byte order)."""
    big = "big endian" in gdb.execute("show endian", to_string=True)
    return struct.unpack_from((">" if big else "<") + fmt, b)


def who(tid):
    """tid 1234 (thread 2), as `info threads` numbers it"""
    if tid == 0:
        return "nobody"
    s = "tid %d" % tid
    try:
        for t in gdb.selected_inferior().threads():
            if t.ptid[1] == tid:
                return "%s (thread %d)" % (s, t.num)
    except gdb.error:
        pass
    return s


class Printer:
    def __init__(self, val):
        self.val = val

    def display_hint(self):
        return None


class MutexPrinter(Printer):
    # __lock, __count, __owner, __nusers, __kind (glibc's layout, every arch)
    def to_string(self):
        b = raw(self.val, 20)
        lock, count, owner, nusers, kind = words(b, "IIIIi")
        name = KIND_NAMES[kind & 3]
        flags = []
        if kind & ROBUST:
            flags.append("robust")
        if kind & PRIO_INHERIT:
            flags.append("priority-inherit")
        if kind & PRIO_PROTECT:
            flags.append("priority-protect, ceiling %d" % ((lock >> 19) & 0x1FFF))
        # (glibc, and fthr with it, marks every robust mutex process-shared
        # in __kind, whatever the attribute said: the mark tells nothing there)
        if kind & PSHARED and not kind & ROBUST:
            flags.append("process-shared")
        head = "fthr mutex (%s%s)" % (name, "".join(", " + f for f in flags))
        if kind & (ROBUST | PRIO_INHERIT):
            # the word holds the owner's tid and the kernel's two bits
            tid = lock & FUTEX_TID_MASK
            if owner == NOTRECOVERABLE:
                state = "not recoverable (its owner died, nobody made it consistent)"
            elif tid == 0 and not lock & FUTEX_OWNER_DIED:
                state = "unlocked"
            elif tid == 0:
                state = "unlocked, its owner died: the next lock returns EOWNERDEAD"
            else:
                state = "locked by %s" % who(tid)
                if lock & FUTEX_OWNER_DIED:
                    state += ", owner died"
                if lock & FUTEX_WAITERS:
                    state += ", waiters sleep"
        else:
            w = lock & 0x7FFFF if kind & PRIO_PROTECT else lock
            if w == 0:
                state = "unlocked"
            elif w == 3:  # lib/lll.h: the hand-off
                state = "handed to a starving waiter, not taken yet"
            else:
                state = "locked by %s" % who(owner)
                if w == 2:
                    state += ", waiters may sleep"
        if (kind & 3) == 1 and count > 0:
            state += ", recursion depth %d" % count
        return "%s: %s" % (head, state)


class CondPrinter(Printer):
    def to_string(self):
        b = raw(self.val, 48)
        wrefs = words(b[36:40], "I")[0]
        if wrefs & 1:  # glibc's process-shared mark (lib/thr_cond.c)
            return ("fthr cond (process-shared, glibc's condition variable): "
                    "%d waiter reference(s), %s" % (wrefs >> 3, CLOCKS[(wrefs >> 1) & 1]))
        seq, drain, flags, sleepers = words(b[0:16], "iIii")
        # the drain count (lib/drain.h): threads (bits 0-19), and deferred
        # wake-ups in units of DRAIN_HOLD (bits 20-29; bit 30 says a
        # waiter sleeps until they end)
        waiters, deferred = drain & 0xFFFFF, (drain >> 20) & 0x3FF
        clock = CLOCKS.get(flags >> 1, "clock %d" % (flags >> 1))
        s = "fthr cond (%s%s): " % (clock, ", process-shared" if flags & 1 else "")
        if waiters == 0:
            s += "no waiters"
        else:
            s += "%d waiter(s), %d asleep" % (waiters, sleepers)
        if deferred:
            s += ", %d wake-up(s) at the mutex's release" % deferred
        return s + ", seq %d" % seq


class RwlockPrinter(Printer):
    def to_string(self):
        b = raw(self.val, 56)
        writer, shared = words(b[24:32], "ii")
        flags = words(b[48:52], "I")[0]
        kind = RW_KINDS.get(flags, "kind %d" % flags)
        if shared:
            # the host's process-shared rwlock: glibc's __readers, __cur_writer
            readers = words(b[0:4], "I")[0]
            s = "fthr rwlock (%s, process-shared, glibc's rwlock): " % kind
            if readers & 2:
                s += "write-locked by %s" % who(writer)
            elif readers >> 3:
                s += "%d reader(s)" % (readers >> 3)
            else:
                s += "unlocked"
            if readers & 4:
                s += ", readers wait"
            return s
        state, lock = words(b[0:8], "Ii")
        rwait, wwait = words(b[16:24], "ii")
        bias = words(b[40:44], "i")[0]
        s = "fthr rwlock (%s): " % kind
        if state & RW_WRITER:
            s += "write-locked by %s" % who(writer)
        elif state & RW_READERS:
            s += "%d reader(s)" % (state & RW_READERS)
        else:
            s += "unlocked"
        if bias & 3:
            s += ", reader bias %s (readers in thread slots are not counted)" % RW_BIAS.get(bias & 3)
        if rwait or wwait:
            s += ", asleep: %d reader(s), %d writer(s)" % (rwait, wwait)
        return s


class SemPrinter(Printer):
    def to_string(self):
        b = raw(self.val, 16)
        data, private = words(b[0:12], "Qi")
        s = "fthr sem%s: value %d" % (" (process-shared)" if private == 128 else "",
                                      data & 0xFFFFFFFF)
        if data >> 32:
            s += ", %d waiter(s)" % (data >> 32)
        return s


class BarrierPrinter(Printer):
    def to_string(self):
        b = raw(self.val, 32)
        host = words(b[12:16], "i")[0]
        if host:
            # the host's process-shared barrier: glibc's in, current_round, count
            inn, rnd, count = words(b[0:12], "III")
            return ("fthr barrier (process-shared, glibc's barrier): count %d, "
                    "%d arrival(s) in all, round %d" % (count, inn, rnd))
        state, count = words(b[0:12], "QI")
        inside = words(b[16:20], "i")[0]
        rnd, arrived = state >> 32, state & 0xFFFFFFFF
        s = "fthr barrier: count %d, round %d, " % (count, rnd)
        s += "%d of %d arrived" % (arrived, count) if arrived else "nobody waiting"
        if inside:
            s += ", %d thread(s) inside" % inside
        return s


PRINTERS = {
    "pthread_mutex_t": MutexPrinter,
    "mtx_t": MutexPrinter,
    "pthread_cond_t": CondPrinter,
    "cnd_t": CondPrinter,
    "pthread_rwlock_t": RwlockPrinter,
    "sem_t": SemPrinter,
    "pthread_barrier_t": BarrierPrinter,
}


def lookup(val):
    t = val.type.unqualified()
    while t.code == gdb.TYPE_CODE_TYPEDEF:
        p = PRINTERS.get(t.name)
        if p:
            return p(val) if fthr_loaded() else None
        t = t.target().unqualified()
    return None


def register(objfile=None):
    if objfile is None:
        gdb.pretty_printers.insert(0, lookup)
    else:
        objfile.pretty_printers.insert(0, lookup)


if lookup not in gdb.pretty_printers:
    register(gdb.current_objfile())
