package render

import "testing"

// The site's lists show times to the minute through the same parsing as
// reports: a time in another zone is shown in UTC, text that is not a
// time is kept.
func TestFormatTimeMinuteLayout(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2026-03-12T10:46:59.9+08:00", "2026-03-12 02:46"},
		{"2026-03-12T02:46:24Z", "2026-03-12 02:46"},
		{"2026-03-12", "2026-03-12"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := FormatTime(tc.in, MinuteLayout); got != tc.want {
			t.Errorf("FormatTime(%q, MinuteLayout) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
