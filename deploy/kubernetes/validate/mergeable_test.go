package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gbench/gbench/run/fleet"
)

// jobUID stands for the uid Kubernetes gives the Job, the same label on
// all its pods.
const jobUID = "0b6d7a52-3f0e-4c1e-9d53-6f1c2e0a9b11"

// pod is what gbench sees in one pod of the Job: its arguments after
// Kubernetes's $(VAR) expansion, and its environment.
type pod struct {
	args []string
	env  map[string]string
}

// podOf resolves the container's environment and arguments in the pod of
// completion index k: the index annotation is k, the controller-uid label
// jobUID, any other field of the pod a value of its own ("pod k's ...");
// a Secret's or ConfigMap's key is the same in every pod. Kubernetes
// adds JOB_COMPLETION_INDEX itself.
func podOf(c *corev1.Container, k int) pod {
	env := map[string]string{fleet.EnvJobCompletion: strconv.Itoa(k)}
	for _, e := range c.Env {
		switch f := e.ValueFrom; {
		case f == nil:
			env[e.Name] = expand(e.Value, env)
		case f.FieldRef != nil && f.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']":
			env[e.Name] = strconv.Itoa(k)
		case f.FieldRef != nil && f.FieldRef.FieldPath == "metadata.labels['batch.kubernetes.io/controller-uid']":
			env[e.Name] = jobUID
		case f.FieldRef != nil || f.ResourceFieldRef != nil:
			env[e.Name] = fmt.Sprintf("pod %d's %s", k, e.Name)
		default:
			env[e.Name] = "the value of " + e.Name + " in its Secret or ConfigMap"
		}
	}
	p := pod{env: env}
	for _, a := range c.Args {
		p.args = append(p.args, expand(a, env))
	}
	return p
}

// expand does Kubernetes's $(VAR) expansion: a defined variable is
// replaced, an undefined one left as it is, $$ is $.
func expand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "$$"):
			b.WriteByte('$')
			i++
		case strings.HasPrefix(s[i:], "$("):
			end := strings.IndexByte(s[i:], ')')
			if v, ok := env[s[i+2:i+max(end, 2)]]; end > 0 && ok {
				b.WriteString(v)
				i += end
				continue
			}
			b.WriteByte(s[i])
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// option returns the value of the last occurrence of a long or short
// option, given as "--name value" or "--name=value".
func option(args []string, names ...string) (string, bool) {
	val, found := "", false
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				val, found = args[i+1], true
			} else if v, ok := strings.CutPrefix(a, n+"="); ok && strings.HasPrefix(n, "--") {
				val, found = v, true
			}
		}
	}
	return val, found
}

// perPod are the options whose values may differ between pods: where
// each writes its result, its logs, and serves its metrics. None enters
// the result's configuration.
var perPod = []string{"--json", "--log-prefix", "--metrics-addr", "--hdr-log"}

// sameOptions is a pod's arguments with the per-pod values blanked.
func sameOptions(args []string) string {
	out := slices.Clone(args)
	for i, a := range out {
		for _, n := range perPod {
			if a == n && i+1 < len(out) {
				out[i+1] = "..."
			} else if strings.HasPrefix(a, n+"=") {
				out[i] = n + "=..."
			}
		}
	}
	return strings.Join(out, " ")
}

// seedOf is the random seed gbench takes in a pod, as cmd/gbench decides
// it: --random-seed, else PGBENCH_RANDOM_SEED, else the run id's; "time"
// and "rand" are each pod's own.
func seedOf(p pod, k int) string {
	s, ok := option(p.args, "--random-seed")
	if !ok {
		s, ok = p.env["PGBENCH_RANDOM_SEED"]
	}
	switch {
	case !ok:
		return strconv.FormatUint(fleet.Seed(runIDOf(p)), 10)
	case s == "time" || s == "rand":
		return fmt.Sprintf("pod %d's %q", k, s)
	}
	return s
}

// runIDOf is the run id of a pod: --run-id, else GBENCH_RUN_ID, else the
// --start-at one.
func runIDOf(p pod) string {
	if id, ok := option(p.args, "--run-id"); ok {
		return id
	}
	if id := p.env[fleet.EnvRunID]; id != "" {
		return id
	}
	if at, ok := option(p.args, "--start-at"); ok {
		return "start-at " + at
	}
	return ""
}

// mergeable lists what keeps the results of the Job's pods from merging
// into one run: gbench merge refuses workers of different run ids, other
// options or seeds, and the same worker twice; results written to one
// file overwrite each other.
func mergeable(j *batchv1.Job, c *corev1.Container) []string {
	var problems []string
	n := int(*j.Spec.Completions)
	pods := make([]pod, n)
	for k := range pods {
		pods[k] = podOf(c, k)
	}
	differ := func(what string, f func(p pod, k int) string) {
		for k := 1; k < n; k++ {
			if a, b := f(pods[0], 0), f(pods[k], k); a != b {
				problems = append(problems, fmt.Sprintf("%s between pods 0 and %d: %q, %q", what, k, a, b))
				return
			}
		}
	}
	differ("the options differ", func(p pod, _ int) string { return sameOptions(p.args) })
	differ("the run id differs", func(p pod, _ int) string { return runIDOf(p) })
	differ("the random seed differs", seedOf)
	differ(fleet.EnvStartAt+" differs", func(p pod, _ int) string { return p.env[fleet.EnvStartAt] })
	if runIDOf(pods[0]) == "" {
		problems = append(problems, "no run id: neither --run-id, "+fleet.EnvRunID+" nor --start-at")
	}
	for k, p := range pods {
		idx, ok := p.env[fleet.EnvWorkerIndex]
		if !ok {
			idx = p.env[fleet.EnvJobCompletion]
		}
		if w, ok := option(p.args, "--worker"); ok {
			idx, _, _ = strings.Cut(w, "/")
		}
		if idx != strconv.Itoa(k) {
			problems = append(problems, fmt.Sprintf("pod %d is worker %q, not %d", k, idx, k))
		}
	}
	files := map[string]int{}
	for k, p := range pods {
		out, ok := option(p.args, "--json")
		switch prev, dup := files[out]; {
		case !ok:
			problems = append(problems, "no --json: the workers' results would be lost")
		case out != "-" && dup:
			problems = append(problems, fmt.Sprintf("pods %d and %d write their results to one file, %s", prev, k, out))
		}
		files[out] = k
	}
	return problems
}

// checkMergeable: the pods of the Job are the workers of one run, whose
// results merge.
func checkMergeable(t *testing.T, j *batchv1.Job, c *corev1.Container) {
	t.Helper()
	for _, p := range mergeable(j, c) {
		t.Error(p)
	}
}

// TestMergeableRefuses: the check finds what would make gbench merge
// refuse the pods' results, in edits of the base's Job.
func TestMergeableRefuses(t *testing.T) {
	base := decode(t, "base", render(t, "base")).jobs[0]
	for _, tt := range []struct {
		name string
		edit func(c *corev1.Container)
		want string
	}{
		{"a seed from each pod's clock", func(c *corev1.Container) { c.Args = append(c.Args, "--random-seed", "time") },
			`the random seed differs between pods 0 and 1: "pod 0's \"time\"", "pod 1's \"time\""`},
		{"a seed from the pod's name", func(c *corev1.Container) {
			c.Env = append(c.Env, corev1.EnvVar{Name: "PGBENCH_RANDOM_SEED",
				ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}})
		}, "the random seed differs between pods 0 and 1"},
		{"the run id from the pod's name", func(c *corev1.Container) {
			for i := range c.Env {
				if c.Env[i].Name == fleet.EnvRunID {
					c.Env[i].ValueFrom.FieldRef.FieldPath = "metadata.name"
				}
			}
		}, "the run id differs between pods 0 and 1"},
		{"an option from the index", func(c *corev1.Container) { c.Args = append(c.Args, "-D", "shard=$(GBENCH_WORKER_INDEX)") },
			"the options differ between pods 0 and 1"},
		{"one result file for all", func(c *corev1.Container) { c.Args = append(c.Args, "--json", "/results/w.json") },
			"pods 0 and 1 write their results to one file, /results/w.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := base.DeepCopy()
			c := &j.Spec.Template.Spec.Containers[0]
			tt.edit(c)
			got := mergeable(j, c)
			if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, tt.want) }) {
				t.Errorf("problems %q, want one starting %q", got, tt.want)
			}
		})
	}
	if got := mergeable(base, &base.Spec.Template.Spec.Containers[0]); len(got) != 0 {
		t.Errorf("the base: %q", got)
	}
}
