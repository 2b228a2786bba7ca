# Soundscape for Linux — the two commands of the README, and a few more.
#   make run     install what is needed, build, import the bundled Helsinki map once, start the assistant
#   make test    install what is needed, build, run every test (integration tests under real daemons)
#   make bench   release build, then print every measured figure against its target

SWIFT        ?= swift
DATA         ?= $(CURDIR)/.data
export SOUNDSCAPE_DATA := $(DATA)
XDG_DATA_HOME ?= $(HOME)/.local/share
MAP_DB       ?= $(XDG_DATA_HOME)/soundscape/map.sqlite
BUNDLED_PBF  := $(DATA)/osm/Helsinki.osm.pbf
RELEASE_BIN  := .build/release/soundscape
BENCH_BIN    := .build/release/soundscape-bench
RUN_ARGS     ?=

.PHONY: all setup build release run test test-reliability fuzz bench sounds proto install uninstall clean demo

all: build

setup:
	@bash scripts/setup

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release

# The bundled map: imported once into the default database, again when the extract or the map format
# (MapStore.schemaVersion) changes; a stamp per format is what tells make that the format changed.
MAP_FORMAT := $(shell sed -n 's/.*static let schemaVersion = \([0-9]*\).*/\1/p' Sources/MapData/Store/MapStore.swift)
MAP_FORMAT_STAMP := .build/map-format-$(MAP_FORMAT)

$(MAP_FORMAT_STAMP):
	@mkdir -p .build && touch $@

$(MAP_DB): $(BUNDLED_PBF) $(MAP_FORMAT_STAMP) | release
	@mkdir -p "$(dir $(MAP_DB))"
	$(RELEASE_BIN) import "$(BUNDLED_PBF)" --db "$(MAP_DB)"

$(BUNDLED_PBF): | setup

run: release $(MAP_DB)
	$(RELEASE_BIN) run --db "$(MAP_DB)" $(RUN_ARGS)

# A scripted walk through central Helsinki (Walks/demo-script.txt) with spoken commands through the real
# recognizer, rendered binaurally into demo.wav and played when a sound server answers. No GPS, microphone
# or sound server needed.
demo: release $(MAP_DB)
	$(RELEASE_BIN) demo --db "$(MAP_DB)" --output demo.wav

# Every test: unit tests and the integration tests, which need the private PulseAudio and gpsd
# that scripts/with-test-services starts and stops around the run. Tests run one at a time: many play
# real audio through a real-time render thread or talk to real daemons, and on two cores parallel
# suites starve each other's threads.
test: setup
	$(SWIFT) build --build-tests
	bash scripts/test-run bash scripts/with-test-services $(SWIFT) test --skip-build --no-parallel

# The whole program (`soundscape run` as a child process) under faults: daemons killed and restarted, files
# locked, corrupt or cut by kill -9, a 2-hour walk at 200x with its memory sampled.
test-reliability: setup
	$(SWIFT) build --build-tests
	bash scripts/with-test-services $(SWIFT) test --skip-build --no-parallel --filter ReliabilityTests

# libFuzzer targets (Fuzz/) for the grammar loader, tile JSON, gpsd JSON, NMEA and PBF blocks, 1 M runs each;
# results in .build/fuzz-results.tsv, crashing inputs in .build/fuzz-artifacts/.
FUZZ_RUNS ?= 1000000
fuzz: release
	bash scripts/fuzz $(FUZZ_RUNS)

# The fuzzers run first; a crash shows as MISSED in the table rather than hiding the other figures.
# The recognizer bench's festival and Piper voices are installed here, not by setup: `make test` never needs them.
# ASR_STRIDE=1 takes every command of the grammars for the recognizer figures (hours on two cores); 4 takes every fourth.
ASR_STRIDE ?= 4
bench: release
	bash scripts/bench-voices-setup
	-bash scripts/fuzz $(FUZZ_RUNS)
	bash scripts/with-test-services sh -c 'exec $(BENCH_BIN) --pbf "$(BUNDLED_PBF)" --fuzz-results .build/fuzz-results.tsv --postgres "$$SOUNDSCAPE_TEST_POSTGRES" --asr-stride $(ASR_STRIDE)'

# Regenerate the earcons in Sounds/ (deterministic synthesis; the beacon loops are made in memory at start).
sounds: setup
	$(SWIFT) run soundscape sounds --output Sounds

# Regenerate the Swift for the OSM PBF messages (needs protoc and protoc-gen-swift on PATH; the output is committed).
proto:
	protoc --swift_out=Sources/MapData/PBF/Generated --swift_opt=Visibility=Internal \
	  -I Sources/MapData/PBF/proto Sources/MapData/PBF/proto/fileformat.proto Sources/MapData/PBF/proto/osmformat.proto \
	  Sources/MapData/PBF/proto/osmread.proto

# Install for the current user: the program, its grammars, models, sounds and walks, and the systemd unit.
PREFIX ?= $(HOME)/.local
install: release
	install -D -m 755 $(RELEASE_BIN) "$(PREFIX)/bin/soundscape"
	mkdir -p "$(PREFIX)/share/soundscape"
	cp -r Grammars Models Sounds Walks README.md "$(PREFIX)/share/soundscape/"
	if [ -f "$(DATA)/rnnoise/librnnoise.so" ]; then install -D -m 644 "$(DATA)/rnnoise/librnnoise.so" "$(PREFIX)/share/soundscape/.data/rnnoise/librnnoise.so"; fi
	for f in libsoundscape-whisper.so ggml-tiny.en.bin; do if [ -f "$(DATA)/whisper/$$f" ]; then install -D -m 644 "$(DATA)/whisper/$$f" "$(PREFIX)/share/soundscape/.data/whisper/$$f"; fi; done
	install -D -m 644 packaging/systemd/soundscape.service "$(HOME)/.config/systemd/user/soundscape.service"
	@echo "Installed. Start it with: systemctl --user daemon-reload && systemctl --user enable --now soundscape"

uninstall:
	rm -rf "$(PREFIX)/bin/soundscape" "$(PREFIX)/share/soundscape" "$(HOME)/.config/systemd/user/soundscape.service"

clean:
	rm -rf .build
