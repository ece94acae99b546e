/* scan.cl - placeholder until the primitive lands. */
