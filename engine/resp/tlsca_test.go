package resp

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
)

// testPKI is a CA whose certificates are written as PEM files in dir.
type testPKI struct {
	*testsrv.CA
	dir, name, caFile string
}

// newPKI makes a CA named name and writes it to dir/<name>-ca.pem.
func newPKI(t *testing.T, dir, name string) *testPKI {
	t.Helper()
	ca := testsrv.NewCA(t, name+" test CA")
	return &testPKI{CA: ca, dir: dir, name: name, caFile: testsrv.WriteFile(t, dir, name+"-ca.pem", ca.Cert)}
}

// issue writes a certificate for cn (a server one for 127.0.0.1 and the
// DNS names when server is set) and its key, and returns their paths.
func (p *testPKI) issue(t *testing.T, cn string, server bool, dns ...string) (cert, key string) {
	t.Helper()
	var hosts []string
	if server {
		hosts = append([]string{"127.0.0.1"}, dns...)
	}
	c, k := p.Issue(t, cn, hosts...)
	return testsrv.WriteFile(t, p.dir, p.name+"-"+cn+".pem", c), testsrv.WriteFile(t, p.dir, p.name+"-"+cn+"-key.pem", k)
}

// mutualTLSRedis starts a redis-server that requires a client certificate
// signed by the returned PKI's CA.
func mutualTLSRedis(t *testing.T) (addr string, pki *testPKI) {
	t.Helper()
	dir := t.TempDir()
	pki = newPKI(t, dir, "good")
	cert, key := pki.issue(t, "server", true, "redis.test")
	port := freePort(t)
	runRedis(t, "--port", "0", "--tls-port", strconv.Itoa(port), "--tls-auth-clients", "yes",
		"--tls-cert-file", cert, "--tls-key-file", key, "--tls-ca-cert-file", pki.caFile)
	return "127.0.0.1:" + strconv.Itoa(port), pki
}

func TestDialTLSClientCertificate(t *testing.T) {
	addr, pki := mutualTLSRedis(t)
	cert, key := pki.issue(t, "client", false)
	wrong := newPKI(t, pki.dir, "wrong")
	wrongCert, wrongKey := wrong.issue(t, "client", false)
	caDir := filepath.Join(pki.dir, "cas")
	os.Mkdir(caDir, 0o755)
	os.Link(pki.caFile, filepath.Join(caDir, "ca.crt"))
	q := url.QueryEscape
	at := "rediss://:" + defaultPassword + "@" + addr
	base := at + "/0?tls_ca_cert=" + q(pki.caFile)
	withCert := base + "&tls_cert=" + q(cert) + "&tls_key=" + q(key)

	for _, ok := range []string{
		withCert,
		at + "?tls_ca_cert_dir=" + q(caDir) + "&tls_cert=" + q(cert) + "&tls_key=" + q(key),
		withCert + "&tls_sni=redis.test&tls_min_version=1.3",
		withCert + "&tls_max_version=1.2&tls_ciphers=ECDHE-ECDSA-AES128-GCM-SHA256",
		"rediss://:" + defaultPassword + "@" + addr + "/1?protocol=3&tls_ca_cert=" + q(pki.caFile) +
			"&tls_cert=" + q(cert) + "&tls_key=" + q(key),
	} {
		dialClient(t, ok).do(t, `simple "PONG"`, "PING")
	}

	for _, tc := range []struct{ name, url, want string }{
		// TLS 1.3: the refusal arrives after the client's handshake, at PING.
		{"no client certificate", base, "redis TLS handshake with rediss://:xxxxx@127.0.0.1:"},
		{"no client certificate, TLS 1.2", base + "&tls_max_version=1.2", "redis connect to rediss://:xxxxx@127.0.0.1:"},
		{"a client certificate of another CA", base + "&tls_cert=" + q(wrongCert) + "&tls_key=" + q(wrongKey), "redis TLS handshake with"},
		{"the wrong CA", at + "?tls_ca_cert=" + q(wrong.caFile) + "&tls_cert=" + q(cert) + "&tls_key=" + q(key), "certificate signed by unknown authority"},
		{"an SNI the certificate lacks", withCert + "&tls_sni=other.test", "other.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := dialErr(t, tc.url)
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), defaultPassword) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseURLTLSFiles(t *testing.T) {
	dir := t.TempDir()
	pki := newPKI(t, dir, "good")
	cert, key := pki.issue(t, "client", false)
	notPEM := filepath.Join(dir, "notpem.txt")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	missing := filepath.Join(dir, "missing.pem")
	for _, tc := range []struct{ query, want string }{
		// Every error names the parameter and the file.
		{"tls_ca_cert=" + missing, `tls_ca_cert: open ` + missing + `: no such file or directory`},
		{"tls_ca_cert=" + notPEM, `tls_ca_cert "` + notPEM + `": no PEM certificate in the file`},
		{"tls_ca_cert_dir=" + missing, `tls_ca_cert_dir: open ` + missing + `: no such file or directory`},
		{"tls_ca_cert_dir=" + t.TempDir(), `no PEM certificate in the folder`},
		{"tls_cert=" + cert, "tls_cert and tls_key go together: give both or neither"},
		{"tls_cert=" + cert + "&tls_key=" + notPEM, `tls_cert "` + cert + `" with tls_key "` + notPEM + `": tls: failed to find any PEM data in key input`},
		{"tls_cert=" + cert + "&tls_key=" + missing, `with tls_key "` + missing + `": open ` + missing},
		{"tls_min_version=1.1", `invalid tls_min_version "1.1": want 1.2 or 1.3`},
		{"tls_min_version=1.3&tls_max_version=TLSv1.2", "tls_min_version is above tls_max_version"},
		{"tls_ciphers=RC4-MD5", `unknown TLS cipher "RC4-MD5" in tls_ciphers`},
		{"tls_sni=", "tls_sni is empty"},
		{"tls_sni=a&tls_sni=b", "tls_sni given twice"},
	} {
		_, err := ParseURL("rediss://127.0.0.1?" + tc.query)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.query, err, tc.want)
		}
	}
	if _, err := ParseURL("redis://127.0.0.1?tls_ca_cert=" + pki.caFile); err == nil ||
		!strings.Contains(err.Error(), "tls_ca_cert needs a rediss:// URL") {
		t.Errorf("tls_ca_cert with redis://: %v", err)
	}
	o, err := ParseURL("rediss://127.0.0.1?tls_ca_cert=" + pki.caFile + "&tls_cert=" + cert + "&tls_key=" + key +
		"&tls_sni=redis.test&tls_ciphers=ECDHE-RSA-AES128-GCM-SHA256:TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384")
	if err != nil {
		t.Fatal(err)
	}
	if o.TLS.RootCAs == nil || len(o.TLS.Certificates) != 1 || o.TLS.ServerName != "redis.test" || len(o.TLS.CipherSuites) != 2 {
		t.Errorf("TLS config %+v", o.TLS)
	}
}
