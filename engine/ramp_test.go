package engine_test

import (
	"math"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/script"
)

// rampSlots replays the schedule of a one-thread run whose rate ramps
// linearly from `from` to `to` over d (Config.RateEnd): the throttle
// sequence is derived from the seed as in scheduledSlots, each slot adds an
// exponential delay of mean 1 to the operational time v, and the slot is at
// the time the ramp's integral reaches v. It returns the slots' times.
func rampSlots(seed uint64, clients int, from, to float64, d time.Duration) []time.Duration {
	var base script.PRNG
	base.Seed(seed)
	for i := 0; i < clients; i++ {
		base.Uint64()
	}
	base.Uint64() // :default_seed
	base.Uint64() // script choice
	var throttle script.PRNG
	throttle.Seed(base.Uint64())
	T := d.Seconds()
	var out []time.Duration
	for v := 0.0; ; {
		v += -math.Log(1.0 - throttle.Float64())
		// from·t + (to-from)·t²/(2T) = v, solved by bisection here (the
		// engine solves it in closed form) so that the replay is an
		// independent computation.
		lo, hi := 0.0, T
		if from*hi+(to-from)*hi*hi/(2*T) < v { // past the end
			return out
		}
		for range 100 {
			mid := (lo + hi) / 2
			if from*mid+(to-from)*mid*mid/(2*T) < v {
				lo = mid
			} else {
				hi = mid
			}
		}
		at := time.Duration(hi*1e9 + 0.5)
		if at > d {
			return out
		}
		out = append(out, at)
	}
}

// rampExpected is the ramp's integral over [t1, t2] seconds: the expected
// number of slots there.
func rampExpected(from, to, T, t1, t2 float64) float64 {
	return from*(t2-t1) + (to-from)*(t2*t2-t1*t1)/(2*T)
}

// TestFakeRampFollowsItsIntegral: a 4 s ramp from 200 to 600 tps on the
// fake clock, with a server that answers at once, runs exactly the slots of
// the seeded schedule (replayed independently), and each second's count is
// within 4.5 standard deviations of the ramp's integral over that second
// (a Poisson count of mean m has deviation sqrt(m); 4.5σ is exceeded by
// chance with probability below 1e-5 per interval, and the seed is fixed
// anyway). A constant rate of 400 would put 400 in the first second, where
// the ramp expects 250 ± 71: the test tells the two apart.
func TestFakeRampFollowsItsIntegral(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const from, to, d, seed = 200.0, 600.0, 4 * time.Second, 11
		var per []int64
		res := fakeRun(t, "SELECT 1;\n", 0, func(c *engine.Config) {
			c.Clients, c.Transactions, c.Duration, c.Seed = 4, 0, d, seed
			c.Rate, c.RateEnd = from, to
			c.Tick = time.Second
			c.OnProgress = func(p engine.Progress) { per = append(per, p.Txn.Cnt) }
		})
		slots := rampSlots(seed, 4, from, to, d)
		if got := res.Stats.Total.Cnt; got != int64(len(slots)) {
			t.Errorf("%d transactions, want the schedule's %d slots", got, len(slots))
		}
		want := make([]int64, 4)
		for _, s := range slots {
			want[min(int(s/time.Second), 3)]++
		}
		// The last interval ends with the run, not with a tick.
		if n := len(per); n == 4 {
			per = per[:3]
		}
		per = append(per, res.Stats.Total.Cnt-sum(per))
		for i := range 4 {
			m := rampExpected(from, to, d.Seconds(), float64(i), float64(i+1))
			tol := 4.5 * math.Sqrt(m)
			t.Logf("second %d: %d transactions, schedule %d, integral %.0f ± %.0f", i+1, per[i], want[i], m, tol)
			if per[i] != want[i] {
				t.Errorf("second %d: %d transactions, the schedule has %d", i+1, per[i], want[i])
			}
			if math.Abs(float64(per[i])-m) > tol {
				t.Errorf("second %d: %d transactions, the ramp's integral is %.0f ± %.0f", i+1, per[i], m, tol)
			}
		}
	})
}

func sum(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

// TestRampScheduleMean: over 200 seeded schedules of a 4 s ramp from 100
// to 900 tps (and one down from 900 to 100), the mean count in each second
// is the integral's (200, 400, 600, 800 going up), within 5 standard errors
// (sqrt(m/200)).
func TestRampScheduleMean(t *testing.T) {
	for _, r := range [][2]float64{{100, 900}, {900, 100}} {
		var counts [4]float64
		for seed := range uint64(200) {
			for _, s := range rampSlots(seed, 1, r[0], r[1], 4*time.Second) {
				counts[min(int(s/time.Second), 3)]++
			}
		}
		for i, c := range counts {
			m := rampExpected(r[0], r[1], 4, float64(i), float64(i+1))
			if mean := c / 200; math.Abs(mean-m) > 5*math.Sqrt(m/200) {
				t.Errorf("ramp %v..%v, second %d: mean %.1f slots, integral %.0f", r[0], r[1], i+1, mean, m)
			}
		}
	}
}

// TestRampValidate: a ramp needs a start rate and a duration.
func TestRampValidate(t *testing.T) {
	s, _ := script.Parse("t.sql", "\\set x 1\n", 1)
	p, _ := script.Compile([]*script.Script{s}, script.Simple, nil)
	for _, c := range []engine.Config{
		{Program: p, Clients: 1, RateEnd: 100, Duration: time.Second},
		{Program: p, Clients: 1, Rate: 100, RateEnd: 200, Transactions: 10},
		{Program: p, Clients: 1, Rate: 100, RateEnd: -1, Duration: time.Second},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("rate %v..%v over %v validated", c.Rate, c.RateEnd, c.Duration)
		}
	}
}

// TestFakeRampAllocatesNothing: a ramping schedule allocates nothing per
// transaction more than the constant rate's: on the fake clock, a 15 s
// ramp from 500 to 1500 tps and 15 s at a constant 1000 tps (about 15000
// transactions each) allocate the same, give or take the set-up. (A run
// allocates a few times per second of its length whatever its schedule,
// about 7 here, so the two runs are compared at the same length.)
func TestFakeRampAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are counted without the race detector")
	}
	synctest.Test(t, func(t *testing.T) {
		mallocs := func(rate, end float64) (uint64, int64) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res := fakeRun(t, "SELECT 1;\n", 0, func(c *engine.Config) {
				c.Clients, c.Transactions, c.Duration, c.Rate, c.RateEnd = 2, 0, 15*time.Second, rate, end
			})
			runtime.ReadMemStats(&after)
			return after.Mallocs - before.Mallocs, res.Stats.Total.Cnt
		}
		mallocs(1000, 0) // what only the first run allocates
		constant, n1 := mallocs(1000, 0)
		ramp, n2 := mallocs(500, 1500)
		perTxn := (float64(ramp) - float64(constant)) / float64(max(n1, n2))
		t.Logf("constant rate: %d allocations for %d transactions; ramp: %d for %d; %.4f more per transaction", constant, n1, ramp, n2, perTxn)
		if perTxn > 0.01 {
			t.Errorf("the ramp allocates %.4f more per transaction than the constant rate", perTxn)
		}
	})
}
