"""Checks a tune report's region phase against the rule for library routes
(test/GPU/program/region-rivals.test): the routed launch and the kernel's
in-place rivals were measured in the same run; a route is "fastest" (kept)
only when it beat every verified rival, and a route a rival beat says so."""
import json
import sys

report = json.load(open(sys.argv[1]))
route_pass = sys.argv[2]
region = [c for c in report["candidates"]
          if c.get("kernel", "").startswith("region #1")]
routes = [c for c in region if c["pipeline"] == route_pass]
rivals = [c for c in region
          if "rewritten in place" in c.get("detail", "")]
if not routes or not rivals:
    sys.exit(f"expected the route {route_pass} and in-place rivals, got "
             f"{[(c['pipeline'], c['status']) for c in region]}")
verified = [c for c in rivals if c["status"] in ("verified", "fastest")]
if any(c["status"] == "fastest" for c in rivals):
    sys.exit("an in-place rival was kept by the region phase")
route = routes[0]
if route["status"] in ("verified", "fastest") and verified:
    best = min(c["median_ms"] for c in verified)
    beaten = route["median_ms"] >= best
    if beaten and (route["status"] == "fastest" or
                   "not kept" not in route.get("detail", "")):
        sys.exit(f"route at {route['median_ms']} ms kept against a rival at "
                 f"{best} ms")
    if not beaten and "not kept" in route.get("detail", ""):
        sys.exit("route faster than every rival marked not kept")
    print(f"route {route['median_ms']:.4f} ms ({route['status']}), best rival "
          f"{best:.4f} ms: {'rival' if beaten else 'route'} wins")
else:
    print(f"route {route['status']}; {len(verified)} verified rivals")
