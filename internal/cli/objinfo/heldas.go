package objinfo

// HeldAs lists the kinds ("lock", "fair lock", "read lock") the holders'
// registration records say their holds on key were taken as: what a
// lock's hash alone cannot tell (a fair lock nobody waits for has a plain
// lock's hash). Holders without a record add nothing.
func (m Clients) HeldAs(key string, hs []Holder) []string {
	var out []string
	for _, h := range hs {
		if h.ClientID == nil {
			continue
		}
		cr, ok := m[*h.ClientID]
		if !ok {
			continue
		}
		if hold, ok := cr.rec.Find(key, h.Field); ok && hold.Object != "" {
			out = append(out, hold.Object)
		}
	}
	return out
}
