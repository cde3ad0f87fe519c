package chaos_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
)

// s1 leads from 0 to 7.9 s; its network is black-holed from 8.05 s to
// 14 s; s2 takes over when the test says. The bound is 4.6 s (session 4 s,
// tick 500 ms, interval 100 ms), so s2 had until 18.6 s. Two resets of s3
// come before: one too early to be around the silence, one within a
// bound of it; a kill of s3 comes after it.
func silence(s2 time.Duration) chaos.Input {
	o := (&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 80).Speak("s2", 1, 20, s2, 10)
	return chaostest.Input(o, s2+time.Second,
		chaostest.Fault(chaos.Reset, "s3", time.Second, time.Second, false),
		chaostest.Fault(chaos.Reset, "s3", 4*time.Second, 4*time.Second, false),
		chaostest.Fault(chaos.HoleLong, "s1", 8050*time.Millisecond, 14*time.Second, true),
		chaostest.Fault(chaos.Kill, "s3", s2+300*time.Millisecond, s2+500*time.Millisecond, false))
}

func TestStall(t *testing.T) {
	in := silence(19700 * time.Millisecond)
	r := chaostest.Check(t, in)
	chaostest.Failures(t, r, "stalls")
	want := []chaos.Stall{{From: chaostest.TS(7900 * time.Millisecond), To: chaostest.TS(19700 * time.Millisecond), Over: 1100 * time.Millisecond,
		Faults: []chaos.Fault{in.Faults[1], in.Faults[2]}}}
	if !reflect.DeepEqual(r.Stalls, want) {
		t.Errorf("stalls = %+v, want %+v", r.Stalls, want)
	}
	if h := r.Kinds[chaos.HoleLong].Handover; h.N != 1 || h.Max != 11650*time.Millisecond {
		t.Errorf("hole-long handover %+v, want 11.65s", h)
	}
	line := "  silence 12:00:07.900 to 12:00:19.700, 1.1s past the bound; faults around it: " +
		"reset s3 12:00:04.000; hole-long s1 12:00:08.050-12:00:14.000 (leader)\n"
	if text := chaostest.Written(r); !strings.Contains(text, line) || !strings.HasSuffix(text, "\nFAIL: stalls\n") {
		t.Errorf("no %q in report:\n%s", line, text)
	}
}

// A silence of 10.55 s, far longer than the bound, is no stall when it
// ends within the bound of the fault's end: the election could not have
// done better. One nanosecond later it is.
func TestLongSilenceWithinBound(t *testing.T) {
	r := chaostest.Check(t, silence(18600*time.Millisecond))
	chaostest.Failures(t, r)
	if r.Stalls != nil {
		t.Errorf("stalls = %+v", r.Stalls)
	}
	r = chaostest.Check(t, silence(18600*time.Millisecond+1))
	if len(r.Stalls) != 1 || r.Stalls[0].Over != 1 {
		t.Errorf("stalls = %+v, want one 1ns over", r.Stalls)
	}
}

// The silences at the soak's edges count too: from Start to the first
// line, and from the last line to End.
func TestStallAtTheEdges(t *testing.T) {
	late := (&chaostest.OutFile{}).Speak("s1", 1, 10, 5*time.Second, 10) // 5 to 5.9 s
	r := chaostest.Check(t, chaostest.Input(late, 6*time.Second))
	want := []chaos.Stall{{From: chaostest.T0, To: chaostest.TS(5 * time.Second), Over: 400 * time.Millisecond}}
	if !reflect.DeepEqual(r.Stalls, want) {
		t.Errorf("from Start: stalls = %+v, want %+v", r.Stalls, want)
	}

	early := (&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 10) // 0 to 0.9 s
	hole := chaostest.Fault(chaos.HoleLong, "s1", time.Second, 3*time.Second, true)
	r = chaostest.Check(t, chaostest.Input(early, 9*time.Second, hole))
	want = []chaos.Stall{{From: chaostest.TS(900 * time.Millisecond), To: chaostest.TS(9 * time.Second), Over: 1400 * time.Millisecond, Faults: []chaos.Fault{hole}}}
	if !reflect.DeepEqual(r.Stalls, want) {
		t.Errorf("to End: stalls = %+v, want %+v", r.Stalls, want)
	}
	if h := r.Kinds[chaos.HoleLong].Handover; h != (chaos.Handover{On: 1, NoLine: 1}) {
		t.Errorf("hole-long handover %+v, want no line after", h)
	}

	// Only the time between Start and End is judged: a line after End
	// does not stretch the last silence, nor does one before Start the
	// first.
	o := (&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 10).Speak("s1", 11, 10, 30*time.Second, 1)
	r = chaostest.Check(t, chaostest.Input(o, 5*time.Second, chaostest.Fault(chaos.Kill, "s1", 2*time.Second, 3*time.Second, true)))
	if r.Stalls != nil {
		t.Errorf("a line after End: stalls = %+v", r.Stalls)
	}
	if h := r.Kinds[chaos.Kill].Handover; h != (chaos.Handover{On: 1, NoLine: 1}) {
		t.Errorf("a line after End: kill handover %+v, want no line after", h)
	}
	o = (&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 10).Speak("s1", 11, 10, 10500*time.Millisecond, 10)
	in := chaostest.Input(o, 11*time.Second)
	in.Start = chaostest.TS(10 * time.Second)
	if r = chaostest.Check(t, in); r.Stalls != nil {
		t.Errorf("a line before Start: stalls = %+v", r.Stalls)
	}
}
