/* userop.cl - placeholder until the primitive lands. */
