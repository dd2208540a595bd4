"""litmodel: the executable memory model of the chapter's completion mechanisms and the async proxy, its litmus
format, and the tests generated from it (README.md)."""
