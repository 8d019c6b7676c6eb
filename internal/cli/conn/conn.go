package conn

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/redis/go-redis/v9"
)

const FlagsHelp = `  --redis URL    Redis to use; repeatable, or a comma list (default $REDIS_URL):
                   redis://[user:pass@]host:port/db    one server (host:port alone works too)
                   rediss://...                        the same over TLS
                   redis-sentinel://[pass@]host:port[,host:port]/mastername[/db]
                                                       the master a Sentinel group names;
                                                       ?sentinel_password=P if sentinels need one
                                                       (rediss-sentinel:// over TLS)
                   redis://host:port?master_name=M&addr=host:port
                                                       the same in go-redis' form (ParseFailoverURL)
                   go-redis' URL parameters work too: ?dial_timeout=1s, ?skip_verify=true
                   with --cluster, every address is a seed node of a Redis Cluster
  --cluster      the --redis addresses belong to a Redis Cluster
  --timeout D    connect and command timeout, also the lock client's timeout for
                 unlocks and watchdog renewals (default 3s)
  TLS (rediss://, or any of these flags, which turn TLS on for every address):
  --tls-ca FILE          PEM CA certificate(s) to verify the server with, instead of
                         the system's (a private CA)
  --tls-cert FILE        PEM client certificate, for a server with tls-auth-clients
                         (mutual TLS); with --tls-key
  --tls-key FILE         PEM private key of --tls-cert
  --tls-server-name N    the name the server's certificate must carry (default: the
                         host dialled)
  --tls-insecure         do not verify the server's certificate (tests only: anyone
                         on the path can pose as the server)
`

// connFlags are the connection flags of every command that talks to Redis.
type Flags struct {
	URLs    URLList
	Cluster bool
	Timeout time.Duration
	TLS     tlsFlags
}

// urlList is a repeatable --redis flag.
type URLList []string

func (l *URLList) String() string { return strings.Join(*l, ",") }

func (l *URLList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func (c *Flags) Register(fs *flag.FlagSet) {
	fs.Var(&c.URLs, "redis", "Redis `URL`: redis://[user:pass@]host:port/db, rediss:// (TLS),\n"+
		"redis-sentinel://[pass@]host:port[,host:port]/master; repeatable or a comma list\n"+
		"(default $REDIS_URL)")
	fs.BoolVar(&c.Cluster, "cluster", false, "the --redis addresses are seed nodes of a Redis Cluster")
	fs.DurationVar(&c.Timeout, "timeout", 3*time.Second, "`duration` of connect and command timeouts; also the lock client's timeout\n(redisson.WithTimeout: unlocks, watchdog renewals)")
	fs.StringVar(&c.TLS.ca, "tls-ca", "", "PEM `file` of the CA certificate(s) to verify the server with, instead of the\nsystem's; turns TLS on, as rediss:// does")
	fs.StringVar(&c.TLS.cert, "tls-cert", "", "PEM `file` of the client certificate, for a server that requires one\n(tls-auth-clients: mutual TLS); needs --tls-key; turns TLS on")
	fs.StringVar(&c.TLS.key, "tls-key", "", "PEM `file` of the private key of --tls-cert")
	fs.StringVar(&c.TLS.serverName, "tls-server-name", "", "`name` the server's certificate must carry (default: the host dialled);\nturns TLS on")
	fs.BoolVar(&c.TLS.insecure, "tls-insecure", false, "do not verify the server's certificate (tests only: anyone on the path can\npose as the server); turns TLS on")
}

// configured reports whether a Redis was given, by flag or $REDIS_URL.
func (c *Flags) Configured() bool {
	return len(c.URLs) > 0 || strings.TrimSpace(os.Getenv("REDIS_URL")) != ""
}

// rawValue returns the --redis values (or $REDIS_URL) as one comma list, for
// passing on to a child process in its environment.
func (c *Flags) RawValue() string {
	if len(c.URLs) > 0 {
		return strings.Join(c.URLs, ",")
	}
	return os.Getenv("REDIS_URL")
}

// items splits the --redis values (or $REDIS_URL) into URLs and bare
// addresses, and names where they came from for messages. A Sentinel URL
// keeps its comma list of sentinels.
func (c *Flags) Items() (items []string, source string) {
	values, source := []string(c.URLs), "--redis"
	if len(values) == 0 {
		if v := strings.TrimSpace(os.Getenv("REDIS_URL")); v != "" {
			values, source = []string{v}, "$REDIS_URL"
		}
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if isSentinelURL(v) {
			items = append(items, v)
			continue
		}
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				items = append(items, part)
			}
		}
	}
	return items, source
}

// isSentinelURL reports a Sentinel URL: the CLI's redis-sentinel:// form, or
// go-redis' own form, a redis:// URL with ?master_name=.
func isSentinelURL(s string) bool {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return false
	}
	switch strings.ToLower(scheme) {
	case "redis-sentinel", "rediss-sentinel":
		return true
	case "redis", "rediss":
		_, query, _ := strings.Cut(rest, "?")
		q, err := url.ParseQuery(query)
		return err == nil && q.Has("master_name")
	}
	return false
}

// errUsage marks connection settings that make no sense (exit code 2).
type ErrUsage struct{ Msg string }

func (e ErrUsage) Error() string { return e.Msg }

// conn is a connected go-redis client and what the commands need to know
// about it.
type Conn struct {
	RDB      redis.UniversalClient
	mode     string // "single", "cluster" or "sentinel"
	Display  string // where, without passwords
	failover *redis.FailoverOptions
	tls      bool // the connections speak TLS
}

// Close closes the go-redis client.
func (c *Conn) Close() error { return c.RDB.Close() }

// dialHook, when set, is told the local address of every connection made.
type dialHook func(local net.Addr)

// client builds the go-redis client of the flags. It does not connect, but
// it checks every address first, so that a typo is a usage error (exit 2)
// rather than a connection failure (exit 1).
func (c *Flags) Client(hook dialHook) (*Conn, error) {
	if c.Timeout <= 0 {
		return nil, ErrUsage{"--timeout must be positive"}
	}
	items, source := c.Items()
	if len(items) == 0 {
		return nil, ErrUsage{"no Redis given: use --redis URL or set REDIS_URL"}
	}
	bad := func(item string, err error) error {
		return ErrUsage{fmt.Sprintf("%s %q: %v", source, redact(item), err)}
	}
	for _, it := range items {
		if isSentinelURL(it) {
			if len(items) > 1 || c.Cluster {
				return nil, ErrUsage{"a Sentinel URL must be the only Redis address, without --cluster"}
			}
			return c.sentinel(it, hook, bad)
		}
	}
	if c.Cluster {
		return c.cluster(items, hook, bad)
	}
	if len(items) > 1 {
		return nil, ErrUsage{fmt.Sprintf("%d Redis addresses given: add --cluster for a Redis Cluster, or give one", len(items))}
	}
	return c.single(items, hook, bad)
}

// sentinel is the client of a Sentinel URL.
func (c *Flags) sentinel(it string, hook dialHook, bad func(string, error) error) (*Conn, error) {
	fo, err := parseSentinelURL(it)
	if err != nil {
		return nil, bad(it, err)
	}
	if fo.TLSConfig, err = c.TLS.apply(fo.TLSConfig); err != nil {
		return nil, err
	}
	fo.DialTimeout = orDefault(fo.DialTimeout, c.Timeout)
	fo.ReadTimeout = orDefault(fo.ReadTimeout, c.Timeout)
	fo.WriteTimeout = orDefault(fo.WriteTimeout, c.Timeout)
	if hook != nil {
		fo.Dialer = hookedDialer(fo.DialTimeout, fo.TLSConfig, hook)
	}
	display := fmt.Sprintf("sentinel master %q via %s", fo.MasterName, strings.Join(fo.SentinelAddrs, ","))
	if fo.TLSConfig != nil {
		display += " (TLS)"
	}
	return &Conn{RDB: redis.NewFailoverClient(fo), mode: "sentinel", Display: display, failover: fo, tls: fo.TLSConfig != nil}, nil
}

// cluster is the client of a Redis Cluster, given one or more nodes.
func (c *Flags) cluster(items []string, hook dialHook, bad func(string, error) error) (*Conn, error) {
	first, err := serverURL(items[0])
	if err != nil {
		return nil, bad(items[0], err)
	}
	co, err := redis.ParseClusterURL(first)
	if err != nil {
		return nil, bad(items[0], err)
	}
	if co.TLSConfig, err = c.TLS.apply(co.TLSConfig); err != nil {
		return nil, err
	}
	for _, it := range items[1:] {
		addr, err := hostPort(it)
		if err != nil {
			return nil, bad(it, err)
		}
		co.Addrs = append(co.Addrs, addr)
	}
	co.DialTimeout = orDefault(co.DialTimeout, c.Timeout)
	co.ReadTimeout = orDefault(co.ReadTimeout, c.Timeout)
	co.WriteTimeout = orDefault(co.WriteTimeout, c.Timeout)
	if hook != nil {
		co.Dialer = hookedDialer(co.DialTimeout, co.TLSConfig, hook)
	}
	display := "cluster " + strings.Join(co.Addrs, ",")
	if co.TLSConfig != nil {
		display += " (TLS)"
	}
	return &Conn{RDB: redis.NewClusterClient(co), mode: "cluster", Display: display, tls: co.TLSConfig != nil}, nil
}

// single is the client of one server.
func (c *Flags) single(items []string, hook dialHook, bad func(string, error) error) (*Conn, error) {
	u, err := serverURL(items[0])
	if err != nil {
		return nil, bad(items[0], err)
	}
	o, err := redis.ParseURL(u)
	if err != nil {
		return nil, bad(items[0], err)
	}
	if o.TLSConfig, err = c.TLS.apply(o.TLSConfig); err != nil {
		return nil, err
	}
	o.DialTimeout = orDefault(o.DialTimeout, c.Timeout)
	o.ReadTimeout = orDefault(o.ReadTimeout, c.Timeout)
	o.WriteTimeout = orDefault(o.WriteTimeout, c.Timeout)
	if hook != nil {
		o.Dialer = hookedDialer(o.DialTimeout, o.TLSConfig, hook)
	}
	display := o.Addr
	if o.DB != 0 {
		display += "/" + strconv.Itoa(o.DB)
	}
	if o.TLSConfig != nil {
		display += " (TLS)"
	}
	return &Conn{RDB: redis.NewClient(o), mode: "single", Display: display, tls: o.TLSConfig != nil}, nil
}

// connect builds the client and checks that Redis answers. A usage problem
// is reported as errUsage.
func (c *Flags) Connect(ctx context.Context, hook dialHook) (*Conn, error) {
	cn, err := c.Client(hook)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	if cl, ok := cn.RDB.(*redis.ClusterClient); ok {
		err = cl.ForEachShard(pctx, func(ctx context.Context, node *redis.Client) error {
			return node.Ping(ctx).Err()
		})
	} else {
		err = cn.RDB.Ping(pctx).Err()
	}
	if err != nil {
		cn.Close()
		if hint := c.tlsHint(err, cn.tls); hint != "" {
			return nil, fmt.Errorf("cannot reach Redis at %s: %w (%s)", cn.Display, err, hint)
		}
		return nil, fmt.Errorf("cannot reach Redis at %s: %w", cn.Display, err)
	}
	return cn, nil
}

// connectOrExit connects and turns errors into an exit code: 2 for usage
// problems, 1 otherwise.
func ConnectOrExit(ctx context.Context, fs *flag.FlagSet, cf *Flags, hook dialHook) (*Conn, int) {
	cn, err := cf.Connect(ctx, hook)
	if err == nil {
		return cn, cliflag.ExitOK
	}
	var ue ErrUsage
	if errors.As(err, &ue) {
		return nil, cliflag.UsageError(fs, "%s", ue.Msg)
	}
	return nil, cliflag.Errorf(fs.Name(), "%v", err)
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// hookedDialer is go-redis' default dialer that also reports each
// connection's local address: the client address MONITOR shows.
func hookedDialer(timeout time.Duration, tlsConfig *tls.Config, hook dialHook) func(context.Context, string, string) (net.Conn, error) {
	dial := redis.NewDialer(&redis.Options{DialTimeout: timeout, TLSConfig: tlsConfig})
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err == nil {
			hook(nc.LocalAddr())
		}
		return nc, err
	}
}

// addrHelp is what a --redis item may be, for messages.
const addrHelp = "want redis://host:port[/db], rediss://..., redis-sentinel://host:port/master or host:port"

// serverURL returns item as a URL for redis.ParseURL or ParseClusterURL
// ("redis://" added to a bare host:port), after checking its host and port.
func serverURL(item string) (string, error) {
	if !strings.Contains(item, "://") {
		if _, err := bareAddr(item); err != nil {
			return "", err
		}
		return "redis://" + item, nil
	}
	u, err := parseURL(item)
	if err != nil {
		return "", err
	}
	switch strings.ToLower(u.Scheme) {
	case "redis", "rediss":
		if err := checkHost(u.Host, true); err != nil {
			return "", err
		}
	case "unix":
	default:
		return "", fmt.Errorf("unknown scheme %q: %s", u.Scheme, addrHelp)
	}
	return item, nil
}

// hostPort returns the checked host:port of a URL (port 6379 by default) or
// of a bare host:port.
func hostPort(item string) (string, error) {
	if !strings.Contains(item, "://") {
		return bareAddr(item)
	}
	u, err := parseURL(item)
	if err != nil {
		return "", err
	}
	if err := checkHost(u.Host, false); err != nil {
		return "", err
	}
	port := u.Port()
	if port == "" {
		port = "6379"
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// bareAddr checks an address given without a scheme: it must be host:port.
// A lone word such as "garbage" is refused rather than dialled on port 6379:
// it is far more often a mistyped URL than a host name.
func bareAddr(s string) (string, error) {
	if !strings.HasPrefix(s, "[") && strings.Count(s, ":") > 1 {
		return "", errIPv6Brackets(s)
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return "", fmt.Errorf("not a Redis address: %s", addrHelp)
	}
	if err := checkHostPort(host, port, strings.HasPrefix(s, "[")); err != nil {
		return "", err
	}
	return s, nil
}

// parseURL is url.Parse without the URL in its errors (it may hold a
// password).
func parseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return nil, ue.Err
	}
	return u, err
}

// checkHost checks the host[:port] part of a URL. An empty host is go-redis'
// localhost when emptyOK.
func checkHost(hostport string, emptyOK bool) error {
	if hostport == "" && emptyOK {
		return nil
	}
	bracketed := strings.HasPrefix(hostport, "[")
	if !bracketed && strings.Count(hostport, ":") > 1 {
		return errIPv6Brackets(hostport)
	}
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && (!bracketed || i > strings.LastIndexByte(hostport, ']')) {
		host, port = hostport[:i], hostport[i+1:]
		if port == "" {
			return errors.New("empty port")
		}
	}
	return checkHostPort(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), port, bracketed)
}

// checkHostPort checks a host name or IP address and a port ("" = the
// default): what url.Parse and net.SplitHostPort let through but cannot be
// dialled, such as ":::" (an IPv6 address without brackets) or port 0.
func checkHostPort(host, port string, bracketed bool) error {
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("bad port %q: want 1-65535", port)
		}
	}
	if bracketed {
		ip, _, _ := strings.Cut(host, "%") // a zone: [fe80::1%eth0]
		if a := net.ParseIP(ip); a == nil || a.To4() != nil {
			return fmt.Errorf("[%s] is not an IPv6 address", host)
		}
		return nil
	}
	if host == "" {
		return errors.New("no host")
	}
	if strings.Contains(host, ":") {
		return errIPv6Brackets(host)
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return fmt.Errorf("bad host %q: not a host name or IP address", host)
		}
	}
	return nil
}

func errIPv6Brackets(host string) error {
	return fmt.Errorf("bad host %q: write an IPv6 address in brackets, e.g. [::1]:6379", host)
}

// parseSentinelURL parses a Sentinel URL. The CLI's form is
//
//	redis-sentinel://[[user:]pass@]host[:port][,host[:port]...]/mastername[/db][?params]
//
// (rediss-sentinel:// for TLS): the credentials are the master's, the
// sentinels' are ?sentinel_username= and ?sentinel_password=, a sentinel's
// port is 26379 by default. go-redis' own form, a redis:// or rediss:// URL
// with ?master_name=, is passed to redis.ParseFailoverURL as it is.
//
// The CLI's form is rewritten into go-redis' form,
//
//	redis://[sentinel_user:sentinel_pass@]host:port[/db]?master_name=M&addr=host2:port2&username=U&password=P[&params]
//
// and parsed by redis.ParseFailoverURL too, which checks the database and
// knows go-redis' parameters (dial_timeout, skip_verify, ...). What is parsed
// by hand here is only what ParseFailoverURL has no form for: the scheme that
// tells a Sentinel URL from a server URL (both go to --redis), the comma list
// of sentinels as the host (url.Parse refuses it; go-redis wants ?addr=), the
// master name as the path, the master's credentials in the user info (there
// go-redis puts the sentinels'), and the sentinel port 26379 (go-redis
// defaults to 6379).
func parseSentinelURL(s string) (*redis.FailoverOptions, error) {
	scheme, rest, _ := strings.Cut(s, "://")
	var goScheme string
	switch strings.ToLower(scheme) {
	case "redis", "rediss":
		u, err := parseURL(s)
		if err != nil {
			return nil, err
		}
		if err := checkHost(u.Host, true); err != nil {
			return nil, err
		}
		return redis.ParseFailoverURL(s)
	case "redis-sentinel":
		goScheme = "redis"
	case "rediss-sentinel":
		goScheme = "rediss"
	default:
		return nil, fmt.Errorf("unknown scheme %q", scheme)
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	userinfo, hostList := "", authority
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		userinfo, hostList = authority[:at+1], authority[at+1:]
	}
	sentinels, err := sentinelAddrs(hostList)
	if err != nil {
		return nil, err
	}
	if len(sentinels) == 0 {
		return nil, errors.New("no sentinel address")
	}
	// url.Parse does the user info, path and query, given one host.
	u, err := parseURL(goScheme + "://" + userinfo + sentinels[0] + tail)
	if err != nil {
		return nil, err
	}
	segs := strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })
	if len(segs) == 0 || len(segs) > 2 {
		return nil, errors.New("want the master name as the path: redis-sentinel://host:port/mastername[/db]")
	}
	q := u.Query()
	if q.Has("master_name") {
		return nil, errors.New("the master name is the path here, not ?master_name=")
	}
	g, err := failoverURL(goScheme, sentinels, segs, u)
	if err != nil {
		return nil, err
	}
	return redis.ParseFailoverURL(g.String())
}

// redact hides the password of a URL for messages.
func redact(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	authority, path, hasPath := strings.Cut(rest, "/")
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return s
	}
	user, _, hasPass := strings.Cut(authority[:at], ":")
	if hasPass {
		authority = user + ":xxx" + authority[at:]
	} else {
		authority = "xxx" + authority[at:]
	}
	out := scheme + "://" + authority
	if hasPath {
		out += "/" + path
	}
	return out
}

// monTarget is one Redis server to MONITOR: how to dial it, and a client
// whose ECHO shows up in that server's MONITOR stream.
type MonTarget struct {
	Addr   string
	Opts   *redis.Options
	Client *redis.Client
}

// masters returns the master servers of the connection: the one server, the
// Sentinel group's current master, or every cluster master.
func (c *Conn) Masters(ctx context.Context) ([]MonTarget, error) {
	switch rdb := c.RDB.(type) {
	case *redis.ClusterClient:
		var mu sync.Mutex
		var out []MonTarget
		err := rdb.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			o := *node.Options()
			mu.Lock()
			out = append(out, MonTarget{Addr: o.Addr, Opts: &o, Client: node})
			mu.Unlock()
			return nil
		})
		sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
		return out, err
	case *redis.Client:
		o := *rdb.Options()
		if c.failover != nil {
			addr, err := sentinelMaster(ctx, c.failover)
			if err != nil {
				return nil, err
			}
			o.Addr = addr
		}
		return []MonTarget{{Addr: o.Addr, Opts: &o, Client: rdb}}, nil
	}
	return nil, fmt.Errorf("unsupported client %T", c.RDB)
}

// sentinelMaster asks the sentinels for the master's address.
func sentinelMaster(ctx context.Context, fo *redis.FailoverOptions) (string, error) {
	var last error
	for _, addr := range fo.SentinelAddrs {
		sc := redis.NewSentinelClient(&redis.Options{
			Addr: addr, Username: fo.SentinelUsername, Password: fo.SentinelPassword,
			TLSConfig: fo.TLSConfig, DialTimeout: fo.DialTimeout, ReadTimeout: fo.ReadTimeout,
		})
		hp, err := sc.GetMasterAddrByName(ctx, fo.MasterName).Result()
		sc.Close()
		if err == nil && len(hp) == 2 {
			return net.JoinHostPort(hp[0], hp[1]), nil
		}
		last = err
	}
	return "", fmt.Errorf("no sentinel knows master %q: %v", fo.MasterName, last)
}

// sentinelAddrs parses the comma list of sentinels, 26379 the default port.
func sentinelAddrs(hostList string) ([]string, error) {
	var sentinels []string
	for _, h := range strings.Split(hostList, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		hu, err := parseURL("redis://" + h)
		if err != nil {
			return nil, fmt.Errorf("sentinel %q: %v", h, err)
		}
		if hu.Host != h {
			return nil, fmt.Errorf("sentinel %q: not host:port", h)
		}
		if err := checkHost(h, false); err != nil {
			return nil, fmt.Errorf("sentinel %q: %v", h, err)
		}
		port := hu.Port()
		if port == "" {
			port = "26379"
		}
		sentinels = append(sentinels, net.JoinHostPort(hu.Hostname(), port))
	}
	return sentinels, nil
}

// failoverURL writes the URL go-redis' ParseFailoverURL reads: the first
// sentinel as the host, the others as addr=, the master name, the master's
// and the sentinels' credentials as query parameters.
func failoverURL(goScheme string, sentinels, segs []string, u *url.URL) (*url.URL, error) {
	q := u.Query()
	g := url.URL{Scheme: goScheme, Host: sentinels[0]}
	if len(segs) == 2 {
		g.Path = "/" + segs[1]
	}
	if su, sp := q.Get("sentinel_username"), q.Get("sentinel_password"); su != "" || sp != "" {
		g.User = url.UserPassword(su, sp)
	}
	q.Del("sentinel_username")
	q.Del("sentinel_password")
	if u.User != nil {
		if q.Has("username") || q.Has("password") {
			return nil, errors.New("the master's credentials are given twice: in the user info and as ?username= or ?password=")
		}
		// pass@ alone is a password, as in redis-cli's URLs.
		user, pass := "", u.User.Username()
		if p, ok := u.User.Password(); ok {
			user, pass = u.User.Username(), p
		}
		if user != "" {
			q.Set("username", user)
		}
		q.Set("password", pass)
	}
	q.Set("master_name", segs[0])
	for _, h := range sentinels[1:] {
		q.Add("addr", h)
	}
	g.RawQuery = q.Encode()
	return &g, nil
}
