package render

import (
	"encoding/xml"
	"testing"
)

// JUnit output has one test case per job, failing at --fail-on.
func TestJUnitOutput(t *testing.T) {
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal([]byte(writeFormat(t, "junit", "en", "job-suspended")), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Tests != 2 {
		t.Errorf("tests = %d, want 2", suites.Tests)
	}
}
