package matrix

import (
	"context"
	"fmt"
	"net"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/result/schema"
)

// server is one server the run talks to: the plan's PostgreSQL or Redis,
// or a path's own. It holds the set-up and probe connection.
type server struct {
	// name is how samples call it: "postgres", "redis", or with the path's
	// name for a path's own.
	name string
	// pgCfg is set for PostgreSQL, respOpt for a RESP server.
	pgCfg   *pgsql.Config
	respOpt *resp.Options
	// plan is set for the plan's servers: the dataset is loaded there and
	// the sandbox's cgroups and postmaster belong to them.
	plan       bool
	pg         *pgsql.Client
	redis      net.Conn
	pgProbe    *pgProbe
	redisProbe *redisProbe
}

// probe is the server's probe.
func (s *server) probe() probe {
	if s.pgProbe != nil {
		return s.pgProbe
	}
	return s.redisProbe
}

// open connects the server's set-up and probe connection.
func (s *server) open(ctx context.Context, c *Config) error {
	if s.pgCfg != nil {
		// The probe tells the sample's connections from others by their
		// application_name (settle): they need one, as the command line
		// gives them.
		s.pgCfg.SetFallbackApplicationName(appName)
		pg, err := s.pgCfg.Open(ctx)
		if err != nil {
			return fmt.Errorf("cannot connect to PostgreSQL%s: %w", s.of(), err)
		}
		s.pg = pg
		s.pgProbe = &pgProbe{label: s.name, conn: pg, appName: pg.Parameter("application_name")}
		if s.plan {
			s.pgProbe.pm, s.pgProbe.own, s.pgProbe.cgroup, s.pgProbe.cgs = c.PostgresPID, c.Sandbox, c.PostgresCgroup, c.PostgresCgroups
		}
		s.openWaits(ctx)
		return nil
	}
	conn, err := resp.Dial(ctx, *s.respOpt)
	if err != nil {
		return fmt.Errorf("cannot connect to Redis%s: %w", s.of(), err)
	}
	s.redis = conn
	rc := resp.NewClient(conn)
	rc.SetTimeout(redisTimeout)
	s.redisProbe = &redisProbe{label: s.name, rc: rc}
	if s.plan {
		s.redisProbe.cgroup, s.redisProbe.cgs = c.RedisCgroup, c.RedisCgroups
	}
	return nil
}

// appName is the application_name of the matrix's connections, unless
// the conninfo names one.
const appName = "gbench-matrix"

// waitsAppName is the application_name of the wait-state sampler's
// connection: not gbench-matrix's, whose backends a sample waits to see
// gone.
const waitsAppName = "gbench-matrix-waits"

// openWaits opens the wait-state sampler's connection, or notes why not.
func (s *server) openWaits(ctx context.Context) {
	w, err := s.pgCfg.Open(ctx)
	if err == nil {
		if err = w.Exec(ctx, "SET application_name = '"+waitsAppName+"'"); err != nil {
			w.Close()
		}
	}
	if err != nil {
		s.pgProbe.waitsNote = "the wait-state sampler could not connect: " + err.Error()
		return
	}
	s.pgProbe.waits = w
}

// of says which server it is in a message: "" for the plan's.
func (s *server) of() string {
	if s.plan {
		return ""
	}
	return fmt.Sprintf(" (%s)", s.name)
}

func (s *server) close() {
	if s.pg != nil {
		s.pg.Close()
	}
	if s.pgProbe != nil && s.pgProbe.waits != nil {
		s.pgProbe.waits.Close()
	}
	if s.redis != nil {
		s.redis.Close()
	}
}

// reconnect opens the probe connection again when a fault took it down
// (a restarted server closes every connection), so that the next try's
// counters and settle work.
func (s *server) reconnect(ctx context.Context) {
	if s.pg != nil {
		if err := s.pg.Ping(ctx); err != nil {
			if pg, err := s.pgCfg.Open(ctx); err == nil {
				s.pg.Close()
				s.pg, s.pgProbe.conn = pg, pg
			}
		}
		if w := s.pgProbe.waits; w == nil || w.Ping(ctx) != nil {
			if w != nil {
				w.Close()
			}
			s.pgProbe.waits = nil
			s.openWaits(ctx)
		}
		return
	}
	if _, _, err := s.redisProbe.rc.Call("PING"); err != nil {
		if conn, err := resp.Dial(ctx, *s.respOpt); err == nil {
			s.redis.Close()
			s.redis = conn
			s.redisProbe.rc = resp.NewClient(conn)
			s.redisProbe.rc.SetTimeout(redisTimeout)
		}
	}
}

// pathServers are the servers one path talks to.
type pathServers struct {
	pg, redis *server // nil when the path does not talk to it
}

// cost returns the server whose cost comes first and the others.
func (ps pathServers) cost(p *Path) (*server, []*server) {
	first, other := ps.pg, ps.redis
	if p.costServer() == "redis" {
		first, other = ps.redis, ps.pg
	}
	if first == nil {
		first, other = other, nil
	}
	if other == nil {
		return first, nil
	}
	return first, []*server{other}
}

// servers finds the servers of every path, opening each once: the plan's
// PostgreSQL and Redis for the paths that talk to them without their own,
// and each path's own.
func (r *runner) servers(ctx context.Context) error {
	var planPG, planRedis *server
	get := func(s **server, make func() (*server, error)) (*server, error) {
		if *s == nil {
			n, err := make()
			if err != nil {
				return nil, err
			}
			*s = n
		}
		return *s, nil
	}
	r.byPath = map[string]pathServers{}
	for i := range r.cfg.Paths {
		p := &r.cfg.Paths[i]
		var ps pathServers
		var err error
		if p.needsSQL() {
			if p.PG != nil {
				ps.pg, err = r.addServer(ctx, &server{name: "postgres " + p.Name, pgCfg: p.PG})
			} else {
				ps.pg, err = get(&planPG, func() (*server, error) {
					if r.cfg.PG == nil {
						return nil, fmt.Errorf("path %s talks to PostgreSQL, and the plan has no PostgreSQL server", p.Name)
					}
					return r.addServer(ctx, &server{name: "postgres", pgCfg: r.cfg.PG, plan: true})
				})
			}
		}
		if err == nil && p.needsRESP() {
			if p.RESP != nil {
				ps.redis, err = r.addServer(ctx, &server{name: "redis " + p.Name, respOpt: p.RESP})
			} else {
				ps.redis, err = get(&planRedis, func() (*server, error) {
					if r.cfg.RESP == nil {
						return nil, fmt.Errorf("path %s talks to a RESP server, and the plan has none", p.Name)
					}
					return r.addServer(ctx, &server{name: "redis", respOpt: r.cfg.RESP, plan: true})
				})
			}
		}
		if err != nil {
			return err
		}
		r.byPath[p.Name] = ps
	}
	r.planPG, r.planRedis = planPG, planRedis
	return nil
}

// addServer opens a server and adds it to the run's.
func (r *runner) addServer(ctx context.Context, s *server) (*server, error) {
	if err := s.open(ctx, &r.cfg); err != nil {
		return nil, err
	}
	r.all = append(r.all, s)
	return s, nil
}

// needsSQL and needsRESP report whether the path talks to PostgreSQL or
// to a RESP server: in its scripts, its reset and cached commands.
func (p *Path) needsSQL() bool {
	return p.hasSQL() || p.Reset != nil && sqlOrRESP(p.Reset.Text, false) || p.Cached != nil && sqlOrRESP(p.Cached.Text, false) ||
		p.ContractScript != nil && sqlOrRESP(p.ContractScript.Text, false)
}

func (p *Path) needsRESP() bool {
	return p.hasRESP() || p.Reset != nil && sqlOrRESP(p.Reset.Text, true) || p.Cached != nil && sqlOrRESP(p.Cached.Text, true) ||
		p.ContractScript != nil && sqlOrRESP(p.ContractScript.Text, true)
}

// endpoints describes every server for the result: the plan's two in
// Postgres and Redis, the paths' own in Servers.
func (r *runner) describe(ctx context.Context) error {
	env := &r.res.Environment
	for _, s := range r.all {
		var e schema.Endpoint
		var err error
		if s.pg != nil {
			e, err = describePostgres(ctx, s.pg, s.pgCfg, r.cfg.Sandbox && s.plan)
			pb := s.pgProbe
			if err == nil && pb.pm == 0 {
				pb.pm, pb.note = findPostmaster(ctx, s.pg, s.pgCfg.Host())
			}
			if _, _, rerr := readTreeCPU(pb.pm); pb.pm != 0 && rerr != nil {
				pb.pm, pb.note = 0, fmt.Sprintf("cannot read the server's processes: %v", rerr)
			}
			e.CostNote, e.CPUSource = pb.note, cpuSource(pb.cgroup, "schedstat")
		} else {
			e, err = describeRedis(s.redisProbe.rc, s.respOpt, r.cfg.Sandbox && s.plan)
			e.CPUSource = cpuSource(s.redisProbe.cgroup, "INFO cpu")
		}
		if err != nil {
			return fmt.Errorf("describing %s: %w", s.name, err)
		}
		if e.CostNote != "" {
			r.logf("%s's CPU and memory will not be measured: %s", s.name, e.CostNote)
		}
		switch {
		case s.plan && s.pg != nil:
			env.Postgres = e
		case s.plan:
			env.Redis = e
		default:
			e.Name = s.name
			env.Servers = append(env.Servers, e)
		}
	}
	return nil
}
