package finding

import "testing"

func TestSeverityRankOrders(t *testing.T) {
	order := []string{SeverityInfo, SeverityWarning, SeverityError, SeverityCritical}
	for i := 1; i < len(order); i++ {
		if SeverityRank(order[i-1]) >= SeverityRank(order[i]) {
			t.Errorf("SeverityRank(%q) >= SeverityRank(%q)", order[i-1], order[i])
		}
	}
	for _, s := range []string{"", "fatal", "Error", " error"} {
		if ValidSeverity(s) {
			t.Errorf("ValidSeverity(%q) = true", s)
		}
	}
}

func TestValidOwner(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{OwnerUser, true}, {OwnerPlatform, true}, {OwnerHardware, true},
		{"", false}, {"User", false}, {"cluster", false},
	}
	for _, tt := range tests {
		if got := ValidOwner(tt.in); got != tt.want {
			t.Errorf("ValidOwner(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestTextIn(t *testing.T) {
	tests := []struct {
		text Text
		lang string
		want string
	}{
		{Text{En: "a", Zh: "甲"}, "zh", "甲"},
		{Text{En: "a", Zh: "甲"}, "en", "a"},
		{Text{En: "a"}, "zh", "a"},
		{Text{En: "a", Zh: "甲"}, "fr", "a"},
	}
	for _, tt := range tests {
		if got := tt.text.In(tt.lang); got != tt.want {
			t.Errorf("%+v.In(%q) = %q, want %q", tt.text, tt.lang, got, tt.want)
		}
	}
}
