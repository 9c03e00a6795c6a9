// The floor for the benchmarks: a hello-world Worker served by the same wrangler and workerd.
// It reads the body (as slackline does) and answers 200.
export default {
  async fetch(request) {
    await request.arrayBuffer();
    return new Response("");
  },
};
