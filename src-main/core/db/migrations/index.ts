import type { Migration } from '../migrate.js';
import { migration0001 } from './0001-core.js';
import { migration0002 } from './0002-tasks.js';
import { migration0003 } from './0003-files.js';
import { migration0004 } from './0004-wakes.js';
import { migration0005 } from './0005-feedback.js';
import { migration0006 } from './0006-wake-dispatch-index.js';
import { migration0007 } from './0007-reservations.js';
import { migration0008 } from './0008-security.js';
import { migration0009 } from './0009-search.js';
import { migration0010 } from './0010-wake-limits.js';
import { migration0011 } from './0011-write-path.js';
import { migration0012 } from './0012-room-changes.js';
import { migration0013 } from './0013-messages-version.js';
import { migration0014 } from './0014-plain-seq.js';
import { migration0015 } from './0015-seq-ids.js';
import { migration0016 } from './0016-message-ids.js';
import { migration0017 } from './0017-parked-deliveries.js';
import { migration0018 } from './0018-worktrees.js';
import { migration0019 } from './0019-merges.js';
import { migration0020 } from './0020-task-events.js';
import { migration0021 } from './0021-needs-dismissals.js';
import { migration0022 } from './0022-room-invitations.js';
import { migration0023 } from './0023-ui-sessions.js';
import { migration0024 } from './0024-test-rooms.js';
import { migration0025 } from './0025-hosts.js';

/** Every migration, in order. A new one is a new file and one line here. */
export const MIGRATIONS: Migration[] = [migration0001, migration0002, migration0003, migration0004, migration0005, migration0006, migration0007, migration0008, migration0009, migration0010, migration0011, migration0012, migration0013, migration0014, migration0015, migration0016, migration0017, migration0018, migration0019, migration0020, migration0021, migration0022, migration0023, migration0024, migration0025];
