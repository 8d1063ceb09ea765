# Thin aliases for dev.py, which needs nothing but Python.
.PHONY: run test stack lint bench
run:
	python3 dev.py demo
test:
	python3 dev.py test
stack:
	python3 dev.py stack
lint:
	python3 dev.py lint
bench:
	python3 dev.py bench
