package resp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// tlsFiles are the TLS parameters of a rediss:// URL, applied to the
// tls.Config once the whole query is read (the files are read then).
type tlsFiles struct {
	caCert, caDir, cert, key string
	set                      map[string]bool // parameters given, to refuse repeats
}

// tlsParam records a tls_* parameter; it reports false for a key that is
// not one.
func (p *urlParser) tlsParam(key, val string) (bool, error) {
	switch key {
	case "tls_ca_cert", "tls_ca_cert_dir", "tls_cert", "tls_key", "tls_sni",
		"tls_ciphers", "tls_min_version", "tls_max_version":
	default:
		return false, nil
	}
	if p.o.TLS == nil {
		return true, fmt.Errorf("%s needs a rediss:// URL", key)
	}
	f := &p.tls
	if f.set[key] {
		return true, fmt.Errorf("%s given twice", key)
	}
	if f.set == nil {
		f.set = map[string]bool{}
	}
	f.set[key] = true
	return true, p.applyTLS(key, val)
}

func (p *urlParser) applyTLS(key, val string) error {
	f, c := &p.tls, p.o.TLS
	switch key {
	case "tls_ca_cert":
		f.caCert = val
	case "tls_ca_cert_dir":
		f.caDir = val
	case "tls_cert":
		f.cert = val
	case "tls_key":
		f.key = val
	case "tls_sni":
		if val == "" {
			return errors.New("tls_sni is empty")
		}
		c.ServerName = val
	case "tls_ciphers":
		return ciphers(c, val)
	case "tls_min_version":
		return tlsVersion(&c.MinVersion, key, val)
	case "tls_max_version":
		return tlsVersion(&c.MaxVersion, key, val)
	}
	return nil
}

// tlsVersion parses "1.2", "1.3" or redis's "TLSv1.2" and "TLSv1.3".
func tlsVersion(dst *uint16, key, val string) error {
	switch strings.TrimPrefix(strings.ToLower(val), "tlsv") {
	case "1.2":
		*dst = tls.VersionTLS12
	case "1.3":
		*dst = tls.VersionTLS13
	default:
		return fmt.Errorf("invalid %s %q: want 1.2 or 1.3", key, val)
	}
	return nil
}

// ciphers sets the TLS 1.2 cipher suites from a list of IANA names
// (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) or OpenSSL names
// (ECDHE-RSA-AES128-GCM-SHA256) separated by ':' or ','.
func ciphers(c *tls.Config, val string) error {
	byName := map[string]uint16{}
	for _, s := range tls.CipherSuites() {
		byName[s.Name] = s.ID
	}
	for _, s := range tls.InsecureCipherSuites() {
		byName[s.Name] = s.ID
	}
	for name := range strings.FieldsFuncSeq(val, func(r rune) bool { return r == ':' || r == ',' }) {
		id, ok := byName[name]
		if !ok {
			id, ok = byName[opensslCiphers[name]]
		}
		if !ok {
			return fmt.Errorf("unknown TLS cipher %q in tls_ciphers (want names such as "+
				"ECDHE-RSA-AES128-GCM-SHA256 or TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)", name)
		}
		c.CipherSuites = append(c.CipherSuites, id)
	}
	if len(c.CipherSuites) == 0 {
		return errors.New("tls_ciphers names no cipher")
	}
	return nil
}

// opensslCiphers maps the OpenSSL names of the TLS 1.2 suites Go offers
// to their IANA names.
var opensslCiphers = map[string]string{
	"ECDHE-ECDSA-AES128-GCM-SHA256": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-ECDSA-AES256-GCM-SHA384": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-RSA-AES128-GCM-SHA256":   "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-RSA-AES256-GCM-SHA384":   "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-ECDSA-CHACHA20-POLY1305": "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-RSA-CHACHA20-POLY1305":   "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-ECDSA-AES128-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
	"ECDHE-ECDSA-AES256-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
	"ECDHE-RSA-AES128-SHA":          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
	"ECDHE-RSA-AES256-SHA":          "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
	"AES128-GCM-SHA256":             "TLS_RSA_WITH_AES_128_GCM_SHA256",
	"AES256-GCM-SHA384":             "TLS_RSA_WITH_AES_256_GCM_SHA384",
}

// loadTLS reads the files the parameters name into the tls.Config. Errors
// name the parameter and the file, never the file's contents.
func (p *urlParser) loadTLS() error {
	f, c := &p.tls, p.o.TLS
	if c == nil {
		return nil
	}
	if c.MaxVersion != 0 && c.MinVersion > c.MaxVersion {
		return errors.New("tls_min_version is above tls_max_version")
	}
	if err := loadRoots(c, f.caCert, f.caDir); err != nil {
		return err
	}
	if (f.cert == "") != (f.key == "") {
		return errors.New("tls_cert and tls_key go together: give both or neither")
	}
	if f.cert == "" {
		return nil
	}
	pair, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		return fmt.Errorf("tls_cert %q with tls_key %q: %w", f.cert, f.key, err)
	}
	c.Certificates = []tls.Certificate{pair}
	return nil
}

// loadRoots sets the CAs from a PEM file and from the files of a folder
// (as redis-cli's --cacert and --cacertdir; OpenSSL's hashed links work,
// being files of the folder).
func loadRoots(c *tls.Config, file, dir string) error {
	if file == "" && dir == "" {
		return nil
	}
	pool := x509.NewCertPool()
	if file != "" {
		if err := addPEM(pool, "tls_ca_cert", file); err != nil {
			return err
		}
	}
	if dir != "" {
		if err := addDir(pool, dir); err != nil {
			return err
		}
	}
	c.RootCAs = pool
	return nil
}

func addPEM(pool *x509.CertPool, key, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if !pool.AppendCertsFromPEM(b) {
		return fmt.Errorf("%s %q: no PEM certificate in the file", key, path)
	}
	return nil
}

// addDir adds every certificate of the PEM files in dir; files that hold
// none are passed over, a folder with none at all is an error.
func addDir(pool *x509.CertPool, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("tls_ca_cert_dir: %w", err)
	}
	found := false
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil && pool.AppendCertsFromPEM(b) {
			found = true
		}
	}
	if !found {
		return fmt.Errorf("tls_ca_cert_dir %q: no PEM certificate in the folder", dir)
	}
	return nil
}
