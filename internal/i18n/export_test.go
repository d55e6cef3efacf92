package i18n

import "io/fs"

// ParseForTest parses catalogues from fsys for the tests.
func ParseForTest(fsys fs.FS, dir string) (map[string]map[string]string, error) {
	c, err := parse(fsys, dir)
	if err != nil {
		return nil, err
	}
	return c.strings, nil
}
