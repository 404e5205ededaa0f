package matrix

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gbench/gbench/workloads"
)

// FuzzPlan feeds plan files to ParsePlan and Plan.Config. Properties:
// nothing panics; every refusal names the file (and, from the decoder,
// the line and column); a plan that parses encodes to a TOML document
// that parses to the same plan: encoding it again gives the same bytes,
// and validating it gives the same answer. Seeds: the bundled plans and
// testdata/fuzz/FuzzPlan.
func FuzzPlan(f *testing.F) {
	for _, name := range workloads.Plans() {
		b, _ := workloads.PlanText(name)
		f.Add(string(b))
	}
	for _, s := range []string{
		"", "connections = [4]\n[[paths]]\nname = 'p'\nscript = 'SELECT 1;'\ncontract = 'none'\n",
		"rates = [nan, inf]\nseed = 18446744073709551615\n[[mixes]]\nname = 'm'\nweights = { 'a b' = 1 }\n",
		"[[paths]]\nname = 'p'\n[paths.scripts.x]\nscript = \"\\\\set keys 1\"\n", "keys = [1, 1e3]", "[servers]\npostgres = 'host=\x00'\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		p, err := ParsePlan("f.toml", []byte(doc))
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if strings.HasPrefix(line, "f.toml:") {
					return
				}
			}
			t.Fatalf("%q: the error names no place: %v", doc, err)
		}
		_, cerr := p.Config(PlanOptions{Name: "f", File: "f.toml", Data: []byte(doc)})
		if cerr != nil && !strings.HasPrefix(cerr.Error(), "f.toml") {
			t.Fatalf("%q: the error names no place: %v", doc, cerr)
		}
		enc, err := p.Encode()
		if err != nil {
			t.Fatalf("%q: parsed, but does not encode: %v", doc, err)
		}
		q, err := ParsePlan("g.toml", enc)
		if err != nil {
			t.Fatalf("%q: encoded as\n%s\nwhich does not parse: %v", doc, enc, err)
		}
		again, err := q.Encode()
		if err != nil || !bytes.Equal(enc, again) {
			t.Fatalf("%q: encoded as\n%s\nthen as\n%s(%v)", doc, enc, again, err)
		}
		if _, err := q.Config(PlanOptions{Name: "f", File: "f.toml", Data: enc}); (err == nil) != (cerr == nil) {
			t.Fatalf("%q: validated with %v, its encoding with %v", doc, cerr, err)
		}
	})
}
