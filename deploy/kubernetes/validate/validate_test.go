package validate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/gbench/gbench/run/fleet"
)

// kustomizeDir is deploy/kubernetes, relative to this test.
const kustomizeDir = ".."

// builds are the kustomizations a user applies: the base and each overlay.
func builds(t *testing.T) []string {
	t.Helper()
	dirs := []string{"base"}
	overlays, err := filepath.Glob(filepath.Join(kustomizeDir, "overlays", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range overlays {
		rel, _ := filepath.Rel(kustomizeDir, o)
		dirs = append(dirs, rel)
	}
	if len(dirs) < 2 {
		t.Fatalf("no overlays under %s", kustomizeDir)
	}
	return dirs
}

// TestKustomizationsDecodeStrictly: every kustomization.yaml is one
// kustomize knows, field for field.
func TestKustomizationsDecodeStrictly(t *testing.T) {
	err := filepath.WalkDir(kustomizeDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "kustomization.yaml" {
			return err
		}
		var k types.Kustomization
		data, err := os.ReadFile(path)
		if err == nil {
			err = yaml.UnmarshalStrict(data, &k)
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// render builds a kustomization as kubectl kustomize does.
func render(t *testing.T, dir string) []*resource.Resource {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join(kustomizeDir, dir))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	return m.Resources()
}

// podMonitor is the part of the Prometheus Operator's PodMonitor the
// manifests use; decoding refuses any other field.
type podMonitor struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		PodMetricsEndpoints []struct {
			Port     string `json:"port"`
			Path     string `json:"path"`
			Interval string `json:"interval"`
		} `json:"podMetricsEndpoints"`
	} `json:"spec"`
}

// objects are a build's resources, decoded.
type objects struct {
	jobs        []*batchv1.Job
	configMaps  map[string]*corev1.ConfigMap
	claims      map[string]bool
	namespaces  map[string]bool
	podMonitors []*podMonitor
	namespace   map[string]string // by kind/name: the object's namespace
}

// decode decodes each resource strictly into its API type; an unknown
// field, a wrong type or an unexpected kind is an error.
func decode(t *testing.T, dir string, rs []*resource.Resource) *objects {
	t.Helper()
	o := &objects{configMaps: map[string]*corev1.ConfigMap{}, claims: map[string]bool{}, namespaces: map[string]bool{}, namespace: map[string]string{}}
	for _, r := range rs {
		data, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		kind := r.GetApiVersion() + " " + r.GetKind()
		where := fmt.Sprintf("%s: %s %s", dir, kind, r.GetName())
		o.namespace[r.GetKind()+"/"+r.GetName()] = r.GetNamespace()
		var target any
		switch kind {
		case "batch/v1 Job":
			j := &batchv1.Job{}
			o.jobs, target = append(o.jobs, j), j
		case "v1 ConfigMap":
			cm := &corev1.ConfigMap{}
			o.configMaps[r.GetName()], target = cm, cm
		case "v1 PersistentVolumeClaim":
			target = &corev1.PersistentVolumeClaim{}
			o.claims[r.GetName()] = true
		case "v1 Namespace":
			target = &corev1.Namespace{}
			o.namespaces[r.GetName()] = true
		case "monitoring.coreos.com/v1 PodMonitor":
			pm := &podMonitor{}
			o.podMonitors, target = append(o.podMonitors, pm), pm
		default:
			t.Errorf("%s: a kind this test does not know; add it", where)
			continue
		}
		if err := yaml.UnmarshalStrict(data, target); err != nil {
			t.Errorf("%s: %v", where, err)
		}
	}
	return o
}

// TestManifests renders every build and checks its objects.
func TestManifests(t *testing.T) {
	g := buildGbench(t)
	for _, dir := range builds(t) {
		t.Run(dir, func(t *testing.T) {
			o := decode(t, dir, render(t, dir))
			if len(o.jobs) != 1 {
				t.Fatalf("%d Jobs, want 1", len(o.jobs))
			}
			for key, ns := range o.namespace {
				if !strings.HasPrefix(key, "Namespace/") && !o.namespaces[ns] {
					t.Errorf("%s is in namespace %q, which the build does not create", key, ns)
				}
			}
			j := o.jobs[0]
			checkJob(t, j)
			c := container(t, j)
			checkEnv(t, j, c)
			checkArgs(t, g, j, c, o)
			checkMetrics(t, j, c, o)
			checkSecurity(t, j, c)
			checkVolumes(t, j, c, o)
			checkMergeable(t, j, c)
		})
	}
}

// checkJob: an Indexed Job whose pods all run at once, once.
func checkJob(t *testing.T, j *batchv1.Job) {
	t.Helper()
	s := &j.Spec
	switch {
	case s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion:
		t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
	case s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism:
		t.Errorf("completions %v, parallelism %v: the workers must all run at once", s.Completions, s.Parallelism)
	case *s.Completions < 1:
		t.Errorf("completions %d", *s.Completions)
	case s.BackoffLimit == nil || *s.BackoffLimit != 0:
		t.Errorf("backoffLimit %v, want 0: a restarted worker cannot rejoin a run that began", s.BackoffLimit)
	case s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever:
		t.Errorf("restartPolicy %q, want Never", s.Template.Spec.RestartPolicy)
	}
}

func container(t *testing.T, j *batchv1.Job) *corev1.Container {
	t.Helper()
	cs := j.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != "gbench" {
		t.Fatalf("containers %v, want one named gbench", cs)
	}
	return &cs[0]
}

// checkEnv: the variables gbench reads, set as a worker needs them: the
// count equal to the Job's completions, the index from the pod's
// completion index, the run id from the Job (the same in every pod).
func checkEnv(t *testing.T, j *batchv1.Job, c *corev1.Container) {
	t.Helper()
	known := []string{fleet.EnvWorkers, fleet.EnvWorkerIndex, fleet.EnvJobCompletion, fleet.EnvRunID, fleet.EnvStartAt,
		"GBENCH_RESP", "GBENCH_TRANSPORT", "PGBENCH_RANDOM_SEED"}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
		if strings.HasPrefix(e.Name, "GBENCH_") && !slices.Contains(known, e.Name) {
			t.Errorf("%s is not a variable gbench reads (%v)", e.Name, known)
		}
	}
	if e, ok := env[fleet.EnvWorkers]; !ok || e.Value != strconv.Itoa(int(*j.Spec.Completions)) {
		t.Errorf("%s = %q, want the Job's completions, %d", fleet.EnvWorkers, e.Value, *j.Spec.Completions)
	}
	index := "metadata.annotations['batch.kubernetes.io/job-completion-index']"
	if e, ok := env[fleet.EnvWorkerIndex]; ok && (e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != index) {
		t.Errorf("%s does not come from %s", fleet.EnvWorkerIndex, index)
	}
	runID := "metadata.labels['batch.kubernetes.io/controller-uid']"
	if e, ok := env[fleet.EnvRunID]; !ok || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != runID {
		t.Errorf("%s does not come from the Job's uid, %s", fleet.EnvRunID, runID)
	}
}

// checkArgs: gbench accepts the options (it parses them all, and reads
// the scripts, before it answers --help), with the ConfigMaps' files where
// the pod mounts them; and they split the run over the workers.
func checkArgs(t *testing.T, gbench string, j *batchv1.Job, c *corev1.Container, o *objects) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append(mountScripts(t, j, c, o), "--help")
	cmd := exec.CommandContext(ctx, gbench, args...)
	cmd.Env = []string{}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("gbench %s: %v\n%s", strings.Join(c.Args, " "), err, stderr.String())
	}
	workers := int(*j.Spec.Completions)
	if jobs := intArg(c.Args, "-j"); jobs < workers {
		t.Errorf("-j %d: %d workers need at least %d threads", jobs, workers, workers)
	}
	if !slices.Contains(c.Args, "--json") {
		t.Error("no --json: the workers' results would be lost")
	}
}

// mountScripts writes the files of the ConfigMaps the container mounts
// into a directory and returns its arguments with the mount paths
// pointing there.
func mountScripts(t *testing.T, j *batchv1.Job, c *corev1.Container, o *objects) []string {
	t.Helper()
	root := t.TempDir()
	args := slices.Clone(c.Args)
	for _, m := range c.VolumeMounts {
		for _, v := range j.Spec.Template.Spec.Volumes {
			if v.Name != m.Name || v.ConfigMap == nil || o.configMaps[v.ConfigMap.Name] == nil {
				continue
			}
			dir := filepath.Join(root, m.MountPath)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, text := range o.configMaps[v.ConfigMap.Name].Data {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for i, a := range args {
				if strings.HasPrefix(a, m.MountPath+"/") {
					args[i] = filepath.Join(root, a)
				}
			}
		}
	}
	return args
}

// intArg returns the value of a numeric option, 1 when absent.
func intArg(args []string, name string) int {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			n, _ := strconv.Atoi(args[i+1])
			return n
		}
	}
	return 1
}

// checkMetrics: --metrics-addr's port is the container's port named
// metrics, and the scrape annotations and any PodMonitor point at it.
func checkMetrics(t *testing.T, j *batchv1.Job, c *corev1.Container, o *objects) {
	t.Helper()
	i := slices.Index(c.Args, "--metrics-addr")
	if i < 0 || i+1 >= len(c.Args) {
		t.Fatal("no --metrics-addr")
	}
	_, port, _ := strings.Cut(c.Args[i+1], ":")
	if port != strconv.Itoa(fleet.DefaultMetricsPort) {
		t.Errorf("--metrics-addr %s, want port %d", c.Args[i+1], fleet.DefaultMetricsPort)
	}
	declared := false
	for _, p := range c.Ports {
		declared = declared || p.Name == "metrics" && strconv.Itoa(int(p.ContainerPort)) == port
	}
	if !declared {
		t.Errorf("no container port named metrics on %s: %v", port, c.Ports)
	}
	a := j.Spec.Template.Annotations
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != port || a["prometheus.io/path"] != "/metrics" {
		t.Errorf("scrape annotations %v", a)
	}
	for _, pm := range o.podMonitors {
		for k, v := range pm.Spec.Selector.MatchLabels {
			if j.Spec.Template.Labels[k] != v {
				t.Errorf("PodMonitor %s selects %s=%s, which the pods do not have (%v)", pm.Metadata.Name, k, v, j.Spec.Template.Labels)
			}
		}
		for _, e := range pm.Spec.PodMetricsEndpoints {
			if e.Port != "metrics" || e.Path != "/metrics" {
				t.Errorf("PodMonitor endpoint %+v", e)
			}
		}
	}
}

// checkSecurity: the pod runs as the image's non-root user, without
// privileges.
func checkSecurity(t *testing.T, j *batchv1.Job, c *corev1.Container) {
	t.Helper()
	ps := j.Spec.Template.Spec.SecurityContext
	if ps == nil || ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot || ps.RunAsUser == nil || *ps.RunAsUser == 0 {
		t.Fatalf("pod securityContext %+v: want runAsNonRoot and a non-root runAsUser", ps)
	}
	if uid := dockerfileUser(t); *ps.RunAsUser != uid {
		t.Errorf("runAsUser %d, the image's user %d", *ps.RunAsUser, uid)
	}
	cs := c.SecurityContext
	if cs == nil || cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation {
		t.Errorf("container securityContext %+v: want allowPrivilegeEscalation false", cs)
	}
}

// dockerfileUser checks deploy/Dockerfile: several stages, a static
// binary, and a numeric non-root user, which it returns.
func dockerfileUser(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(kustomizeDir, "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := len(regexp.MustCompile(`(?m)^FROM `).FindAllString(text, -1)); n < 2 {
		t.Errorf("Dockerfile has %d stages, want a build stage and a runtime stage", n)
	}
	if !strings.Contains(text, "CGO_ENABLED=0") {
		t.Error("Dockerfile does not build a static binary (CGO_ENABLED=0)")
	}
	users := regexp.MustCompile(`(?m)^USER (\d+)(?::\d+)?\s*$`).FindAllStringSubmatch(text, -1)
	if len(users) == 0 {
		t.Fatal("Dockerfile has no numeric USER")
	}
	uid, _ := strconv.ParseInt(users[len(users)-1][1], 10, 64)
	if uid == 0 {
		t.Error("Dockerfile runs as root")
	}
	return uid
}

// checkVolumes: every mount has its volume, every ConfigMap and claim a
// volume names is in the build.
func checkVolumes(t *testing.T, j *batchv1.Job, c *corev1.Container, o *objects) {
	t.Helper()
	vols := map[string]corev1.Volume{}
	for _, v := range j.Spec.Template.Spec.Volumes {
		vols[v.Name] = v
		if cm := v.ConfigMap; cm != nil && o.configMaps[cm.Name] == nil {
			t.Errorf("volume %s: no ConfigMap %s in the build", v.Name, cm.Name)
		}
		if pvc := v.PersistentVolumeClaim; pvc != nil && !o.claims[pvc.ClaimName] {
			t.Errorf("volume %s: no claim %s in the build", v.Name, pvc.ClaimName)
		}
	}
	for _, m := range c.VolumeMounts {
		if _, ok := vols[m.Name]; !ok {
			t.Errorf("mount %s: no such volume", m.Name)
		}
	}
}

// buildGbench builds gbench from the repository, in its own module.
func buildGbench(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "gbench")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, "./cmd/gbench")
	cmd.Dir = filepath.Join(kustomizeDir, "..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
