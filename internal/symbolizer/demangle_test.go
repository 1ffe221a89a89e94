package main

import "testing"

// TestDemangleName checks demangleName against llvm-cxxfilt-19's output
// for names that occur in the test programs, including the cases where
// the Go demangler needs LLVM's spacing.
func TestDemangleName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"main", "main"},
		{"_Z3fibi", "fib(int)"},
		{"_ZNK2ns3BoxIiE3getEv", "ns::Box<int>::get() const"},
		{"_ZN2nsL4leafEi", "ns::leaf(int)"},
		{"_ZStltIcSt11char_traitsIcESaIcEEbRKNSt7__cxx1112basic_stringIT_T0_T1_EESA_",
			"bool std::operator<<char, std::char_traits<char>, std::allocator<char>>(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char>> const&, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char>> const&)"},
		{"_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
			"std::basic_ostream<char, std::char_traits<char>>& std::operator<<<std::char_traits<char>>(std::basic_ostream<char, std::char_traits<char>>&, char const*)"},
		{"_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int>>::push_back(int const&)"},
		{"_ZZ4mainENK3$_0clEi", "main::$_0::operator()(int) const"},
		{"_Z1fv.cold", "f() (.cold)"},
		{"_Znotmangled", "_Znotmangled"},
	} {
		if got := demangleName(tc.in); got != tc.want {
			t.Errorf("demangleName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
