# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): debuginfod, and
# the local search for debug files that stands in for libdwfl's.  A
# real server (Debian's debuginfod, started here on a free local port)
# serves the debug file of a stripped workload; the decoder asks it only
# with --debuginfod, says once that a server cannot be reached, and the
# fuzzer never asks one.  Every server started here is stopped at the
# end, or on exit.

di="$T/dbgsrv"	# no "debuginfod" in its paths: the messages are grepped for it
di_pid=
di_silent_pid=
di_endless_pid=
di_stop() {
	local p
	for p in $di_pid $di_silent_pid $di_endless_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	di_pid='' di_silent_pid='' di_endless_pid=''
}
# the part's servers are stopped however the run ends, before the rest
di_trap=$(trap -p EXIT)
di_trap=${di_trap#"trap -- '"}
di_trap=${di_trap%"' EXIT"}
# shellcheck disable=SC2064 # the previous trap's text, now
trap "di_stop; $di_trap" EXIT

# a metric of the server's /metrics (0 if absent); fails if no answer
di_metric() {
	/usr/bin/python3 - "$1" "$2" <<'EOF'
import sys, urllib.request
try:
    text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics",
                                  timeout=5).read().decode()
except OSError:
    sys.exit(1)
for line in text.splitlines():
    if line.startswith(sys.argv[2] + " "):
        print(int(float(line.split()[-1])))
        break
else:
    print(0)
EOF
}
di_free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
di_requests() { di_metric "$di_port" 'http_requests_total{type="debuginfo"}'; }
# a decode's output and messages in $di_out, the time it took in $di_secs
di_decode() {
	local t0=$EPOCHREALTIME
	di_out=$(timeout 120 "$B/perfregs-dump" "$@" 2>&1)
	di_secs=$(/usr/bin/python3 -c "print(round($EPOCHREALTIME - $t0, 1))")
}

if ! command -v debuginfod >/dev/null; then
	echo "ok - debuginfod # SKIP no debuginfod server (make deps installs Debian's)"
elif ! mkdir -p "$di/dbg" ||
     ! cc -O1 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -fomit-frame-pointer \
	-fPIE -pie -o "$di/wl" tests/dbg_target.c ||
     ! cc -O2 -g -fPIE -pie -o "$di/wl2" tests/dbg_target.c ||
     ! objcopy --only-keep-debug "$di/wl" "$di/dbg/wl.debug" ||
     ! strip -s "$di/wl" "$di/wl2"; then
	echo "not ok - debuginfod: the stripped workload and its debug file could not be made"
else
	# the workloads, stopped in read() with their callers on the stack:
	# one sample of each with its stack (mksnap), three at wait_line (mkmaps)
	mkfifo "$di/in"
	"$di/wl" < "$di/in" > "$di/out" &
	di_w1=$!
	"$di/wl2" < "$di/in" > "$di/out2" &
	di_w2=$!
	exec 8> "$di/in"
	for _ in $(seq 100); do
		read -r di_sc1 _ < "/proc/$di_w1/syscall"
		read -r di_sc2 _ < "/proc/$di_w2/syscall"
		[ "$di_sc1" = 0 ] && [ "$di_sc2" = 0 ] && break	# both in read()
		sleep 0.05
	done
	"$B/mksnap" "$di/snap.prf" 8192 "$di_w1" "$di_w2"
	"$B/mkmaps" "$di/at.prf" "$di_w1" "$(head -1 "$di/out")" 3 > /dev/null
	exec 8>&-
	wait "$di_w1" "$di_w2"

	# the server, ready once its scan has found the debug file
	di_port=$(di_free_port)
	debuginfod -F -p "$di_port" -d "$di/db.sqlite" -t 0 -g 0 "$di/dbg" > "$di/server.log" 2>&1 &
	di_pid=$!
	for _ in $(seq 300); do
		[ "$(di_metric "$di_port" 'found_debuginfo_total{source="files"}')" = 1 ] && break
		kill -0 "$di_pid" 2>/dev/null || break
		sleep 0.1
	done
	export DEBUGINFOD_URLS="http://127.0.0.1:$di_port" DEBUGINFOD_CACHE_PATH="$di/cache"
	if [ "$(di_metric "$di_port" 'found_debuginfo_total{source="files"}')" != 1 ]; then
		echo "not ok - debuginfod: the server did not start or find the debug file"
		sed 's/^/# /' "$di/server.log" | tail -5
	else
		# DEBUGINFOD_URLS alone asks nothing (libdwfl's client did)
		di_decode script -F sym,srcline -i "$di/at.prf"
		di_at=$di_out
		di_decode script -F sym,callchain -i "$di/snap.prf"
		di_snap=$di_out
		di_n=$(di_requests)
		if [ "$di_n" = 0 ] && ! grep -qE "wait_line|middle_layer|debuginfod" <<< "$di_at$di_snap"; then
			echo "ok - debuginfod: DEBUGINFOD_URLS without --debuginfod asks no server (0 requests): the stripped workload stays unnamed"
		else
			echo "not ok - debuginfod: DEBUGINFOD_URLS without --debuginfod: ${di_n:-?} requests to the server (want 0)"
			sed 's/^/# /' <<< "$di_at$di_snap" | head -8
		fi

		# --debuginfod: names and lines of static functions, CFI only
		# the debug file has (.debug_frame): the chain goes on to main
		di_decode script -q --debuginfod -F sym,srcline -i "$di/at.prf"
		di_at=$di_out
		di_decode script -q --debuginfod -F sym,callchain -i "$di/snap.prf"
		di_snap=$di_out
		di_chain=$(awk '$2 ~ /^(wait_line|middle_layer|main)\+/ { sub(/\+.*/, "", $2); print $2 }' \
			<<< "$di_snap" | paste -sd' ')
		di_n=$(di_requests)
		if [ "$(grep -c '^ *(wait_line+0x0) dbg_target\.c:[0-9]' <<< "$di_at")" = 3 ] &&
		   [ "$di_chain" = "wait_line middle_layer main" ] && [ "${di_n:-0}" -ge 1 ] &&
		   [ -s "$di/cache/$(readelf -n "$di/wl" | awk '/Build ID/ { print $3 }')/debuginfo" ]; then
			echo "ok - debuginfod: --debuginfod names a stripped workload's static functions, their lines, and unwinds through them with the debug file's CFI ($di_n requests)"
		else
			echo "not ok - debuginfod: --debuginfod: chain '$di_chain' (want wait_line middle_layer main), ${di_n:-?} requests"
			sed 's/^/# /' <<< "$di_at$di_snap" | head -12
		fi

		# report, the URL given (none in the environment), a cache of its own
		di_n=$(di_requests)
		DEBUGINFOD_URLS='' DEBUGINFOD_CACHE_PATH="$di/cache2" \
			di_decode report -q -s sym --debuginfod="http://127.0.0.1:$di_port" -i "$di/at.prf"
		if grep -q "wait_line" <<< "$di_out" && [ "$(di_requests)" -gt "$di_n" ]; then
			echo "ok - debuginfod: report --debuginfod=URL fetches and names (DEBUGINFOD_URLS unset)"
		else
			echo "not ok - debuginfod: report --debuginfod=URL did not name wait_line"
			sed 's/^/# /' <<< "$di_out" | head -8
		fi

		# the size budget: a debug file over DEBUGINFOD_MAXSIZE is not
		# fetched (the server is told, and refuses it with 406)
		DEBUGINFOD_MAXSIZE=1000 DEBUGINFOD_CACHE_PATH="$di/cache5" \
			di_decode script --debuginfod -F sym -i "$di/at.prf"
		if [ "$(grep -c "perfregs-dump: debuginfod" <<< "$di_out")" = 1 ] &&
		   grep -q "^perfregs-dump: debuginfod: debug files larger than 1000 bytes were not fetched" <<< "$di_out" &&
		   ! grep -q wait_line <<< "$di_out"; then
			echo "ok - debuginfod: a debug file over DEBUGINFOD_MAXSIZE is not fetched, said in one line"
		else
			echo "not ok - debuginfod: a debug file over DEBUGINFOD_MAXSIZE=1000"
			sed 's/^/# /' <<< "$di_out" | head -6
		fi

		# the fuzzer never asks a server, whatever DEBUGINFOD_URLS says
		if [ -x "$B/fuzz_recording" ]; then
			mkdir -p "$di/corpus"
			"$B/mkunwind" "$di/corpus/unwind.prf" 1 16 64:vdso	# the vDSO: stripped
			cp "$di/snap.prf" "$di/at.prf" "$di/corpus/"
			[ -d "$T/corpus" ] && cp "$T"/corpus/*.prf "$di/corpus/" 2>/dev/null
			di_n=$(di_requests)
			DEBUGINFOD_CACHE_PATH="$di/fcache" "$B/fuzz_recording" -max_total_time=3 \
				-timeout=10 -max_len=1048576 "$di/corpus" > "$di/fuzz.log" 2>&1
			di_f=$(di_requests)
			if [ "$di_f" = "$di_n" ] && grep -q "^Done" "$di/fuzz.log"; then
				echo "ok - debuginfod: the fuzzer, 3 s with DEBUGINFOD_URLS at the server, asks it nothing (nor does libFuzzer's llvm-symbolizer)"
			else
				echo "not ok - debuginfod: the fuzzer asked the server $((di_f - di_n)) times (want 0)"
				tail -3 "$di/fuzz.log" | sed 's/^/# /'
			fi
		else
			echo "ok - debuginfod: the fuzzer asks no server # SKIP no clang/libFuzzer"
		fi
	fi
	unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH

	# a server that cannot be reached: refused (a closed port), or silent
	# (it takes connections and never answers): one line, once; no other
	# file is asked for (the silent server counts its connections); the
	# decode goes on and ends within the timeout
	di_closed=$(di_free_port)
	DEBUGINFOD_CACHE_PATH="$di/cache3" di_decode script --threads 1 \
		--debuginfod="http://127.0.0.1:$di_closed" -F sym,callchain -i "$di/snap.prf"
	di_lines=$(grep -c "perfregs-dump: debuginfod" <<< "$di_out")
	if [ "$di_lines" = 1 ] && grep -q "^perfregs-dump: debuginfod: cannot reach http://127.0.0.1:$di_closed (Connection refused)" <<< "$di_out" &&
	   grep -q "__read" <<< "$di_out"; then
		echo "ok - debuginfod: a refused server is said in one line, and the decode goes on (${di_secs} s)"
	else
		echo "not ok - debuginfod: a refused server: $di_lines lines about it (want 1)"
		sed 's/^/# /' <<< "$di_out" | head -8
	fi
	/usr/bin/python3 - "$di/accepted" > "$di/silent_port" <<'EOF' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
held = []
while True:
    held.append(s.accept()[0])
    with open(sys.argv[1], "w") as f:
        f.write(f"{len(held)}\n")
EOF
	di_silent_pid=$!
	for _ in $(seq 100); do [ -s "$di/silent_port" ] && break; sleep 0.05; done
	DEBUGINFOD_CACHE_PATH="$di/cache4" di_decode script --threads 1 \
		--debuginfod="http://127.0.0.1:$(cat "$di/silent_port")" --debuginfod-timeout=2 \
		-F sym,callchain -i "$di/snap.prf"
	di_lines=$(grep -c "perfregs-dump: debuginfod" <<< "$di_out")
	if [ "$di_lines" = 1 ] && grep -q "^perfregs-dump: debuginfod: cannot reach .* (no answer within 2 s)" <<< "$di_out" &&
	   [ "$(cat "$di/accepted" 2>/dev/null)" = 1 ] &&
	   /usr/bin/python3 -c "import sys; sys.exit($di_secs >= 10)"; then
		echo "ok - debuginfod: a silent server is given up after --debuginfod-timeout 2 in one line, and not asked again ($di_secs s)"
	else
		echo "not ok - debuginfod: a silent server: $di_lines lines about it (want 1), $(cat "$di/accepted" 2>/dev/null || echo 0) connections (want 1), $di_secs s (want < 10)"
		sed 's/^/# /' <<< "$di_out" | head -8
	fi

	# a hostile server that ignores the size budget and sends a file
	# without end, its length untold (chunked): cut off at the budget
	/usr/bin/python3 - "$di/sent" > "$di/endless_port" 2> "$di/endless.log" <<'EOF' &
import http.server, sys
class Endless(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk, sent = b"\0" * 65536, 0
        try:
            while sent < 1 << 33:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
        except OSError:
            pass	# the client gave up: what this test wants
        finally:
            with open(sys.argv[1], "w") as f:
                f.write(f"{sent}\n")
    def log_message(self, *args):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), Endless)
print(s.server_address[1], flush=True)
s.serve_forever()
EOF
	di_endless_pid=$!
	for _ in $(seq 100); do [ -s "$di/endless_port" ] && break; sleep 0.05; done
	DEBUGINFOD_MAXSIZE=1000000 DEBUGINFOD_CACHE_PATH="$di/cache6" di_decode script --threads 1 \
		--debuginfod="http://127.0.0.1:$(cat "$di/endless_port")" --debuginfod-timeout=20 \
		-F sym -i "$di/at.prf"
	for _ in $(seq 100); do [ -s "$di/sent" ] && break; sleep 0.05; done
	di_sent=$(cat "$di/sent" 2>/dev/null)
	if [ "$(grep -c "perfregs-dump: debuginfod" <<< "$di_out")" = 1 ] &&
	   grep -q "^perfregs-dump: debuginfod: debug files larger than 1000000 bytes were not fetched" <<< "$di_out" &&
	   [ -n "$di_sent" ] && [ "$di_sent" -lt 100000000 ]; then
		echo "ok - debuginfod: a server sending a debug file without end is cut off past DEBUGINFOD_MAXSIZE (it sent $di_sent bytes; $di_secs s)"
	else
		echo "not ok - debuginfod: a server sending without end: it sent ${di_sent:-?} bytes (want < 100000000), $di_secs s"
		sed 's/^/# /' <<< "$di_out" | head -6
	fi
fi

# a live run never asks a server
di_out=$(timeout 10 "$B/perfregs-dump" --debuginfod=http://127.0.0.1:1 -- true 2>&1)
di_rc=$?
if [ "$di_rc" = 1 ] && grep -q "a live run never waits on a server" <<< "$di_out"; then
	echo "ok - debuginfod: a live run refuses --debuginfod"
else
	echo "not ok - debuginfod: a live run with --debuginfod: exit $di_rc, '$di_out'"
fi

# With no server to ask, no debuginfod client either: libdwfl's standard
# search would dlopen libdebuginfod (and libcurl with 30 more libraries,
# 8 MiB of RSS) for every stripped file.  Its local search stays: a
# .gnu_debuglink file under the debug path (--symfs's here) is taken when
# its build-id is the file's, and one of another build-id is not.
what="debug files: a stripped file's .gnu_debuglink file under --symfs/usr/lib/debug names it, one of another build-id does not, and libdebuginfod is never loaded"
dl="$T/dlink"
rm -rf "$dl"
if mkdir -p "$dl/root$dl" "$dl/root/usr/lib/debug$dl" &&
   cc -O1 -g -fPIE -pie -o "$dl/wl" tests/dbg_target.c &&
   objcopy --only-keep-debug "$dl/wl" "$dl/wl.debug" && strip -s "$dl/wl" &&
   objcopy --add-gnu-debuglink="$dl/wl.debug" "$dl/wl" &&
   cc -O2 -g -o "$dl/other" tests/dbg_target.c; then
	mkfifo "$dl/in"
	"$dl/wl" < "$dl/in" > "$dl/out" &
	dl_w=$!
	exec 8> "$dl/in"
	for _ in $(seq 100); do
		read -r dl_sc _ < "/proc/$dl_w/syscall"
		[ "$dl_sc" = 0 ] && break	# in read()
		sleep 0.05
	done
	"$B/mkmaps" "$dl/at.prf" "$dl_w" "$(head -1 "$dl/out")" 1 > /dev/null
	exec 8>&-
	wait "$dl_w"
	cp "$dl/wl" "$dl/root$dl/wl"
	dl_dec() {	# the chain with the debug file at its debuglink place
		env -u DEBUGINFOD_URLS LD_DEBUG=files "$B/perfregs-dump" script -q -i "$dl/at.prf" \
			--symfs "$dl/root" -F sym 2> "$dl/ld.txt"
	}
	cp "$dl/wl.debug" "$dl/root/usr/lib/debug$dl/wl.debug"
	dl_good=$(dl_dec)
	objcopy --only-keep-debug "$dl/other" "$dl/root/usr/lib/debug$dl/wl.debug"
	dl_bad=$(dl_dec)	# none found: where libdwfl would ask its client
	dl_libs=$(grep -cE "file=lib(debuginfod|curl)" "$dl/ld.txt")
	if grep -q "wait_line" <<< "$dl_good" && ! grep -q "wait_line" <<< "$dl_bad" &&
	   [ "$dl_libs" = 0 ]; then
		echo "ok - $what"
	else
		echo "not ok - $what: $dl_libs libraries of debuginfod loaded; with the file: $(tr '\n' ' ' <<< "$dl_good" | head -c 300); another's: $(tr '\n' ' ' <<< "$dl_bad" | head -c 300)"
	fi
else
	echo "not ok - $what: the stripped program and its debug file could not be made"
fi
di_stop
# shellcheck disable=SC2064 # the previous trap, as it was
if [ -n "$di_trap" ]; then trap "$di_trap" EXIT; else trap - EXIT; fi
