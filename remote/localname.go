package remote

import (
	"os"
	"os/user"
	"strings"
)

// LocalName is the name remote setup records for the first phone's
// person where --name gives none: the local user's account name
// (os/user), without a Windows domain, else $USER, else $USERNAME. It is
// empty where none of them is a name CheckName takes.
func LocalName() string {
	account := ""
	if u, err := user.Current(); err == nil {
		account = u.Username
	}
	return localName(account, os.Getenv)
}

// localName is LocalName for the account name the system gave (empty
// where it gave none), with the environment read through getenv.
func localName(account string, getenv func(string) string) string {
	if i := strings.LastIndexByte(account, '\\'); i >= 0 {
		account = account[i+1:] // DOMAIN\user
	}
	for _, name := range []string{account, getenv("USER"), getenv("USERNAME")} {
		if CheckName(name) == nil {
			return name
		}
	}
	return ""
}
