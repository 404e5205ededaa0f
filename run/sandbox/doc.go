// Package sandbox starts throwaway PostgreSQL and Redis servers for one
// benchmark run and removes every trace of them afterwards.
//
// # Use
//
//	sb, err := sandbox.Start(ctx, sandbox.Options{
//		Postgres:       true,
//		Redis:          true,
//		MaxConnections: clients + 20,
//		Log:            stderr,
//	})
//	if err != nil {
//		return err // says what to install when a binary is missing
//	}
//	defer sb.Close()
//	conninfo := sb.PostgresConnString() // host=127.0.0.1 port=... user=postgres dbname=gbench sslmode=disable
//	redisURL := sb.RedisURL()           // redis://127.0.0.1:.../0
//
// Start returns once each server accepts connections and the database named
// by Options.Database exists. Close stops the servers and removes the
// directory; so does the end of the ctx given to Start. Pass a ctx that
// outlives the run: a sandbox closed by Ctrl-C while clients still run turns
// their last transactions into errors.
//
// # What runs
//
// Each server listens on 127.0.0.1 only (and on Options.Listen, which a test
// with clients in network namespaces of its own gives), on a port that was free (never 5432
// or 6379, where the machine's own servers live), with its files in a new
// directory under Options.BaseDir: /dev/shm by default, so the data sits in
// memory and the disk plays no part in the numbers. Neither asks for a
// password: while a sandbox runs, any local user can connect to it.
//
// PostgreSQL is created with initdb (trust authentication, UTF8, C locale)
// and started by running postgres directly, so it stays our child rather than
// a daemon. It runs durable by default, as the reference cache benchmark does
// (fsync, synchronous_commit and full_page_writes on, data and WAL on
// tmpfs), or with all three off under Options.DurabilityOff (see
// DurabilitySettings);
// PostgresSettings reads back every setting the sandbox passed so that a
// report can record them next to the results. Redis runs with saving and the
// append-only file off.
//
// PostgreSQL refuses to run as root. When gbench is root, initdb and postgres
// run as Options.User (default: $GBENCH_SANDBOX_USER, else postgres), which
// must exist and must be able to enter BaseDir.
//
// # Cleanup
//
// The servers run in their own process groups, so the terminal's Ctrl-C
// reaches gbench alone and gbench decides when they stop: PostgreSQL with a
// fast shutdown (SIGINT), Redis with SIGTERM, either killed if it takes more
// than ten seconds. On Linux the kernel also signals them when gbench dies,
// even by SIGKILL; the directory such a gbench leaves behind is removed by
// the next Start with the same base directory.
//
// # Finding the binaries
//
// initdb and redis-server are looked up on PATH, then (PostgreSQL only) in
// pg_config --bindir, then in the usual install places: Debian's
// /usr/lib/postgresql/<version>/bin (highest version first),
// /usr/local/pgsql/bin and the Homebrew prefixes. postgres is taken from the
// directory initdb is in, so both always come from one installation.
package sandbox
