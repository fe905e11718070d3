import { diskBackend, fileBehaviours } from '../helpers/files.js';

/** The owner's file API on local disk (DATA_DIR/files); files-s3.test.ts runs the same through S3. */
fileBehaviours(diskBackend);
