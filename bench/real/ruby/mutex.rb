# vm_thread_mutex3 style: 1000 threads (created and joined in the timed run)
# increment one counter under one Mutex. Every 8th critical section gives the
# GVL away between its read and its write, so the others really block on the
# Mutex (and a lost update would show in the exact count).
require_relative 'common'

NTHREADS = 1000
def work(per)
  m = Mutex.new
  r = 0
  NTHREADS.times.map {
    Thread.new {
      per.times { |i|
        m.synchronize {
          v = r
          Thread.pass if i % 8 == 0
          r = v + 1
        }
      }
    }
  }.each(&:join)
  check(r == NTHREADS * per, "counter #{r}, not #{NTHREADS * per}")
end

per = scale(50)
result(timed(per / 20, per) { |n| work(n) }, 's')
