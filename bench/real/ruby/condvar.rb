# ConditionVariable ping-pong: two threads take turns under one Mutex, each
# waiting for its turn and signalling the other (a sleep and a wake-up per turn).
require_relative 'common'

def work(rounds)
  m = Mutex.new
  cv = ConditionVariable.new
  turn = 0
  hits = [0, 0]
  2.times.map { |me|
    Thread.new {
      m.synchronize {
        rounds.times {
          cv.wait(m) until turn == me
          hits[me] += 1
          turn = 1 - me
          cv.signal
        }
      }
    }
  }.each(&:join)
  check(hits == [rounds, rounds] && turn == 0, "hits #{hits.inspect}, turn #{turn}")
end

rounds = scale(60_000)
secs = timed(rounds / 20, rounds) { |n| work(n) }
result(rounds / secs, 'round-trips/s')
