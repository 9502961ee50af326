// node:test with no tests at all: the plan is 1..0.
import 'node:test';
